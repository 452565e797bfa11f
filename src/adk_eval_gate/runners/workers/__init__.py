"""The processes the gate runs in, and what is observed there: the supervising parent of ``run`` (``supervisor``), the
worker starter that imports ADK early and forks the agent workers (``starter``), the pool of agent worker processes
(``pool``) and the worker's side of it (``worker_side``), one call in a process of its own (``forked_call``) and
agents-cli's metric code in such processes (``function_process``), and what agent and metric code use of the repository
(``observe``, ``observe_events``, ``metric_reads``). Imports nothing, so the supervising parent stays light."""
