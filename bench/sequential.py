"""Sequential verdicts against fixed ``--num-runs 10`` on one seeded synthetic stream of run outcomes (issue 46).

A suite has 200 cases: 75% always pass, 10% always fail, 15% flaky with pass rates spread over 0.2-0.9 (0.2,
0.35, 0.45, 0.55, 0.65, 0.8, 0.9 in turn). Each case of each trial draws ONE stream of 0/1 run outcomes; fixed-10 reads
its first 10, the sequential rule (``adk_eval_gate.verdict.sequential``, 95%, margin 0.10, 2-10 runs, ``--undecided
point``) reads as many as it needs of the same stream, as two gates would on one pull request. ``mean`` at 0.7 is
read on the same outcomes as a 0/1 metric's scores (a scripted agent's exact match), and once more on scores (the
flaky cases' scores Beta-distributed with their rate as mean, concentration 8; the others constant).

Prints, per pass rule and ``--undecided`` policy (point, neutral, fail): the runs spent against fixed-10's (targets
for point: majority <= 50%, mean 0.7 <= 80%, all <= 90%), the differences from fixed-10 on the cases whose runs
never vary (target 0), the right gate verdict on the flaky cases against the known rate for both (target:
sequential >= fixed-10 - 1 point; a neutral case counts as passing), the differences not labelled proven (target 0
for point) and the decisions; then the validity over many streams (a proven pass at a true rate of threshold -
margin, a proven fail at the threshold: <= 5% each), in run order, with failing runs finishing last, and re-run
until green with the evidence kept (up to 5 attempts); then the healthy agent (5% of cases flaky with pass rates in
0.7-0.95): how often the suite fails with fixed-10 and under each policy (targets: neutral <= 5%, point <=
fixed-10); and the wall time at parallelism 8, SIMULATED (each run lasts an exponential time of mean 1 plus 0.5;
waves as ``next_wave`` plans them), against fixed-10's (target: <= the run ratio + 15 points). Under neutral a
case runs on for a proof of ``200 / alpha`` (the error split across the suite's cases) and, once every case is
decided, e-BH across the suite's final e-values fails the cases it proves failing, as the gate does (the neutral
rows and the healthy agent's re-run with e-BH, seed 1, 100 trials, the same day).

    python bench/sequential.py [--trials 100] [--streams 2000] [--seed 1]

Measured (seed 1, 100 trials, 2000 streams per point, 29 November 2026, 688 s at a load average of 6-8):

- runs against fixed-10 (point / neutral / fail): majority 45.5 / 52.6 / 45.5%, mean 0.7 on 0/1 runs
  65.7 / 74.4 / 65.7%, on scores 65.7 / 74.9 / 65.7%, all 82.0% under each (targets for point met);
- point: stable cases decided otherwise 0 under every rule, differences not labelled proven 0; flaky cases right,
  sequential / fixed-10: majority 84.8 / 85.0%, mean 85.9 / 85.8%, mean on scores 97.7 / 97.7%, all 93.8 / 93.8%;
- neutral: a failure must be proven for the whole suite (each case runs on for ``200 / alpha``; at the end e-BH
  over the cases' final e-values fails those proven failing across the suite), so cases that truly fail stay
  undecided more often and do not fail the gate: flaky cases right 55.3% (majority), 35.1% (mean), 57.8% (scores),
  93.8% (all), stable cases decided otherwise 0 under each; under majority every always-failing case (20 per suite)
  reaches an e-value of 613 in its 10 runs, short of 200 / 0.05 = 4,000 alone, and e-BH's bar for 20 is 200: all
  fail (before e-BH: flaky cases right 53.3%, 30.2%, 34.7%, and those 20 stayed undecided); fail: 81.6%, 87.7%,
  95.9%, 93.8%;
- validity (proven pass at threshold - margin / proven fail at the threshold): majority 2.45 / 3.00% in run order,
  2.65 / 3.85% with failing runs last, 2.85 / 3.90% re-run until green; mean 0.7: 3.10 / 3.30%, 3.25 / 3.15%,
  2.25 / 3.80% (target <= 5% each);
- healthy agent, suites that fail (fixed-10, point, neutral, fail): majority 40 / 40 / 0 / 66%, mean 0.7 on 0/1
  runs 73 / 73 / 0 / 95%, on scores 55 / 55 / 0 / 98% (neutral <= 5% and point <= fixed-10: met); all
  100% everywhere: under all a case with a pass rate below 1 truly fails, so that suite is not healthy for it;
- wall time at parallelism 8, simulated: majority 46.1% of fixed-10's (run ratio 45.5%), mean 66.0% (65.7%), all
  83.8% (82.0%) (target: the run ratio + 15 points).
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import math
import random
import sys
import time
from collections.abc import Callable

from adk_eval_gate.verdict import (
    CaseEvidence,
    MetricSpec,
    RunOutcome,
    SequentialSettings,
    consume,
    continue_evidence,
    e_bh,
    gate_verdict,
    next_wave,
    open_evidence,
)

N = 10
FLAKY_RATES = (0.2, 0.35, 0.45, 0.55, 0.65, 0.8, 0.9)
RULES = (("majority", 0.5), ("mean", 0.7), ("all", 1.0))
SUITES = (("majority", False), ("mean", False), ("mean", True), ("all", False))
METRIC = MetricSpec("exact_match", 0.7)


def suite_rates(*, healthy: bool, rng: random.Random) -> list[float]:
    if healthy:
        return [1.0] * 190 + [rng.uniform(0.7, 0.95) for _ in range(10)]
    return [1.0] * 150 + [0.0] * 20 + [FLAKY_RATES[index % len(FLAKY_RATES)] for index in range(30)]


POLICIES = ("point", "neutral", "fail")
SUITE_CASES = 200


def settings_for(rule: str, *, undecided: str = "point", max_runs: int = N) -> SequentialSettings:
    """The gate's settings: under ``neutral`` a proven failure's error is split across the suite's 200 cases."""
    split = SUITE_CASES if undecided == "neutral" else 1
    return SequentialSettings(
        pass_rule=rule,  # type: ignore[arg-type]
        max_runs=max_runs,
        undecided=undecided,  # type: ignore[arg-type]
        fail_split=split,
    )


def open_case(settings: SequentialSettings) -> CaseEvidence:
    return open_evidence(settings, [METRIC] if settings.pass_rule == "mean" else [])


def outcome(value: float) -> RunOutcome:
    """A run: passed when its score is 1 (0/1 runs), its score the metric's."""
    return RunOutcome(value >= 1.0, {METRIC.name: value})


def sequential(settings: SequentialSettings, stream: list[float]) -> CaseEvidence:
    return consume(open_case(settings), {run: outcome(value) for run, value in enumerate(stream, start=1)})


def fixed_passes(rule: str, stream: list[float]) -> bool:
    """Today's verdict on the first N runs."""
    passed = math.fsum(stream[:N])
    return passed == N if rule == "all" else 2 * passed > N if rule == "majority" else passed / N >= 0.7


def truly_passes(rule: str, rate: float) -> bool:
    return rate >= 1.0 if rule == "all" else rate > 0.5 if rule == "majority" else rate >= 0.7


def draw(rng: random.Random, rate: float, count: int) -> list[float]:
    """0/1 runs that pass at ``rate``."""
    return [1.0 if rng.random() < rate else 0.0 for _ in range(count)]


def draw_scores(rng: random.Random, rate: float, count: int) -> list[float]:
    """Scores of mean ``rate``: constant at 0 and 1, else Beta of concentration 8 (a noisy judge)."""
    if rate in (0.0, 1.0):
        return [rate] * count
    return [rng.betavariate(8 * rate, 8 * (1 - rate)) for _ in range(count)]


def compare(rule: str, trials: int, seed: int, *, scores: bool, policy: str = "point") -> dict[str, float]:
    rng = random.Random(seed)
    settings = settings_for(rule, undecided=policy)
    figures = dict.fromkeys(
        (
            "runs",
            "stable_diff",
            "flaky",
            "right_seq",
            "right_fixed",
            "unproven_diff",
            "proven",
            "curtailed",
            "undecided",
        ),
        0.0,
    )
    for _ in range(trials):
        rates = suite_rates(healthy=False, rng=rng)
        streams = [(draw_scores if scores else draw)(rng, rate, N) for rate in rates]
        evidences = [sequential(settings, stream) for stream in streams]
        for rate, stream, evidence, (passed, decision) in zip(
            rates, streams, evidences, suite_verdicts(evidences), strict=True
        ):
            fixed = fixed_passes(rule, stream)
            figures["runs"] += evidence.runs
            figures["proven" if decision.startswith("proven") else decision] += 1
            if passed != fixed and not decision.startswith("proven"):
                figures["unproven_diff"] += 1
            if rate in (0.0, 1.0):
                figures["stable_diff"] += passed != fixed
                continue
            figures["flaky"] += 1
            figures["right_seq"] += passed == truly_passes(rule, rate)
            figures["right_fixed"] += fixed == truly_passes(rule, rate)
    return figures


def suite_verdicts(evidences: list[CaseEvidence]) -> list[tuple[bool, str]]:
    """Each case's gate verdict (True: it does not fail the gate) and decision, as ``verdict.decide`` gives them once
    every case is decided: under ``neutral``, the cases e-BH proves failing across the suite fail, proven."""
    settings = evidences[0].settings
    flagged = set(e_bh([e.e_fail for e in evidences], alpha=1.0 - settings.confidence))
    if settings.undecided != "neutral":
        flagged = set()
    return [
        (False, "proven-fail") if index in flagged else (gate_verdict(e) != "fail", e.decision or "undecided")
        for index, e in enumerate(evidences)
    ]


def in_completion_order(settings: SequentialSettings, stream: list[float]) -> CaseEvidence:
    evidence = open_case(settings)
    finished: dict[int, RunOutcome] = {}
    for run in sorted(range(1, len(stream) + 1), key=lambda run: (stream[run - 1] < 1.0, run)):
        finished[run] = outcome(stream[run - 1])
        evidence = consume(evidence, finished)
    return evidence


def until_green(settings: SequentialSettings, rng: random.Random, rate: float, attempts: int = 5) -> CaseEvidence:
    evidence = open_case(settings)
    for _ in range(attempts):
        start = evidence.runs
        evidence = consume(evidence, {start + k: outcome(value) for k, value in enumerate(draw(rng, rate, N), start=1)})
        if evidence.passed:
            break
        evidence = continue_evidence(evidence)
    return evidence


def validity(rule: str, threshold: float, streams: int, seed: int) -> dict[str, tuple[float, float]]:
    """Proven pass at threshold - margin and proven fail at the threshold, as shares of the streams."""
    rng = random.Random(seed)
    settings = settings_for(rule, max_runs=20)
    ways: dict[str, Callable[[float], CaseEvidence]] = {
        "run order": lambda rate: sequential(settings, draw(rng, rate, 20)),
        "failing runs last": lambda rate: in_completion_order(settings, draw(rng, rate, 20)),
        "re-run until green": lambda rate: until_green(settings_for(rule), rng, rate),
    }
    shares = {}
    for name, decide in ways.items():
        false_pass = sum(decide(threshold - 0.1).decision == "proven-pass" for _ in range(streams)) / streams
        false_fail = sum(decide(threshold).decision == "proven-fail" for _ in range(streams)) / streams
        shares[name] = (false_pass, false_fail)
    return shares


def healthy(rule: str, trials: int, seed: int, *, scores: bool) -> dict[str, float]:
    rng = random.Random(seed)
    fails = {"fixed-10": 0.0, **dict.fromkeys(POLICIES, 0.0)}
    for _ in range(trials):
        verdicts = {name: False for name in fails}
        streams = [(draw_scores if scores else draw)(rng, rate, N) for rate in suite_rates(healthy=True, rng=rng)]
        verdicts["fixed-10"] = not all(fixed_passes(rule, stream) for stream in streams)
        for policy in POLICIES:
            evidences = [sequential(settings_for(rule, undecided=policy), stream) for stream in streams]
            verdicts[policy] = not all(passed for passed, _ in suite_verdicts(evidences))
        for name, failed in verdicts.items():
            fails[name] += failed
    return {name: count / trials for name, count in fails.items()}


def wall_time(rule: str, *, sequential_on: bool, parallelism: int, seed: int) -> float:
    """The simulated wall time of one suite: a run of ``parallelism`` slots fed case by case, as waves plan."""
    rng = random.Random(seed)
    streams = [draw(rng, rate, N) for rate in suite_rates(healthy=False, rng=rng)]
    cases = [open_case(settings_for(rule)) for _ in streams]
    outcomes: list[dict[int, RunOutcome]] = [{} for _ in streams]
    started = [0] * len(streams)
    events: list[tuple[float, int, int]] = []
    clock, free = 0.0, parallelism
    while True:
        for index, evidence in enumerate(cases):
            if not free:
                break
            wave = (
                next_wave(evidence, in_flight=started[index] - evidence.runs, free_slots=free)
                if sequential_on
                else min(N - started[index], free)
            )
            for _ in range(wave):
                started[index] += 1
                free -= 1
                heapq.heappush(events, (clock + 0.5 + rng.expovariate(1.0), index, started[index]))
        if not events:
            return clock
        clock, index, run = heapq.heappop(events)
        free += 1
        outcomes[index][run] = outcome(streams[index][run - 1])
        if sequential_on:
            cases[index] = consume(cases[index], outcomes[index])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.monotonic()
    print(f"seed {args.seed}, {args.trials} trials of 200 cases, --num-runs {N}, 95%, margin 0.10, 2-{N} runs\n")
    ratios = {}
    for (offset, (rule, scores)), policy in itertools.product(enumerate(SUITES), POLICIES):
        figures = compare(rule, args.trials, args.seed + offset, scores=scores, policy=policy)
        cases = args.trials * 200
        name = f"{rule} on scores" if scores else rule
        ratio = figures["runs"] / (cases * N)
        ratios.setdefault(name, ratio)  # point's, for the wall time
        flaky = figures["flaky"]
        print(
            f"{name:<15} {policy:<7} runs {figures['runs'] / args.trials:7.1f} per suite, {100 * ratio:.1f}% of"
            " fixed-10's"
            f" | stable cases decided otherwise: {figures['stable_diff']:.0f}"
            f" | flaky cases right: sequential {100 * figures['right_seq'] / flaky:.1f}%,"
            f" fixed-10 {100 * figures['right_fixed'] / flaky:.1f}%"
            f" | differences not proven: {figures['unproven_diff']:.0f}"
            f" | per suite {figures['proven'] / args.trials:.1f} proven, {figures['curtailed'] / args.trials:.1f}"
            f" curtailed, {figures['undecided'] / args.trials:.1f} undecided"
        )
    print(f"\nvalidity ({args.streams} streams of 0/1 runs per point, up to 20 runs; re-runs: 5 attempts of 10):")
    for offset, (rule, threshold) in enumerate(RULES[:2]):
        centre = 0.5 if rule == "majority" else threshold
        for way, (false_pass, false_fail) in validity(rule, centre, args.streams, args.seed + 10 + offset).items():
            print(
                f"  {rule:<9} {way:<19} proven pass at {centre - 0.1:.1f}: {100 * false_pass:.2f}%,"
                f" proven fail at {centre:.1f}: {100 * false_fail:.2f}%"
            )
    print(f"\nhealthy agent (5% of cases flaky, pass rates 0.7-0.95), share of {args.trials} suites that fail:")
    for offset, (rule, scores) in enumerate(SUITES):
        shares = healthy(rule, args.trials, args.seed + 20 + offset, scores=scores)
        name = f"{rule} on scores" if scores else rule
        print(f"  {name:<15} " + ", ".join(f"{name} {100 * share:.1f}%" for name, share in shares.items()))
    print("\nwall time at parallelism 8, SIMULATED (run durations 0.5 + Exp(1)), sequential / fixed-10:")
    for rule, _threshold in RULES:
        seq = sum(wall_time(rule, sequential_on=True, parallelism=8, seed=args.seed + k) for k in range(5))
        fixed = sum(wall_time(rule, sequential_on=False, parallelism=8, seed=args.seed + k) for k in range(5))
        print(f"  {rule:<9} {100 * seq / fixed:.1f}% (run ratio {100 * ratios[rule]:.1f}%)")
    print(f"\n(elapsed {time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
