"""Which work items run, before they run: what each case depends on and the cases a change can touch
(``--only-affected``), and the cases to run again once the first runs are done (``--confirm-failures``)."""
