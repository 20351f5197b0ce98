"""Framework adapters: contextfold inside pydantic-ai, LangChain v1 and the OpenAI Agents SDK.

One module per framework, each needing its extra (``pip install 'contextfold[pydantic-ai]'``,
``'contextfold[langchain]'``, ``'contextfold[openai-agents]'``):

* `contextfold.adapters.pydantic_ai`: a history processor and a capability;
* `contextfold.adapters.langchain`: an ``AgentMiddleware`` for ``create_agent``;
* `contextfold.adapters.openai_agents`: a ``Session`` that compacts after each turn and a
  ``call_model_input_filter`` for each request.

Importing this package imports none of the frameworks; importing one of the modules imports its
framework, and raises `contextfold.MissingExtraError` naming the pip install when it is missing.
"""

__all__: list[str] = []
