"""The real-server fixtures themselves: each server answers its own protocol, and survives a kill and restart."""

from __future__ import annotations

import asyncio

import servers


def test_redis_answers_and_restarts(redis_server: servers.Server) -> None:
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.set("k", "v")
    assert client.get("k") == b"v"
    redis_server.restart()
    assert redis.Redis.from_url(redis_server.url).ping()


def test_postgres_answers(postgres_server: servers.Server) -> None:
    import asyncpg

    async def query() -> int:
        conn = await asyncpg.connect(postgres_server.url)
        try:
            return int(await conn.fetchval("select 41 + 1"))
        finally:
            await conn.close()

    assert asyncio.run(query()) == 42


def test_s3_server_stores_objects(s3_server: servers.Server) -> None:
    import boto3  # comes with moto

    env = s3_server.env
    s3 = boto3.client(
        "s3",
        endpoint_url=env["AWS_ENDPOINT_URL"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        region_name=env["AWS_DEFAULT_REGION"],
    )
    s3.create_bucket(Bucket="bucket")
    s3.put_object(Bucket="bucket", Key="a/key", Body=b"payload")
    assert s3.get_object(Bucket="bucket", Key="a/key")["Body"].read() == b"payload"
