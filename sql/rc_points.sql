-- RC working points (docs/metrics.md): one per distinct confidence (plateau), ties entering together,
-- in descending confidence order (plateau 1 = most confident): rc_plateaus' increments summed
-- by rc_running. `samples` names a relation (replicate, participant_id, multiplicity).
-- `evaluate` composes the same macros itself, over rc_cells built once per evaluation.
CREATE OR REPLACE MACRO rc_points(scored, samples, totals) AS TABLE
WITH plateau_cells AS (
    FROM rc_cells(scored)
),
increments AS (
    FROM rc_plateaus(scored, 'plateau_cells', samples)
)
FROM rc_running(increments, totals);
