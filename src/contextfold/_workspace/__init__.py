"""The workspace: where offloaded content lives (offloader protocol, local workspace, codec, split, read-back)."""
