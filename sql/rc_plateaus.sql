-- Plateaus of the RC curve (docs/metrics.md) per series and replicate: every distinct confidence
-- (plateau 1 = most confident) with the predicted items k and raw loss sum l it adds, weighted
-- by the replicate's multiplicities. `cells` names rc_cells(scored) (a relation: `evaluate`
-- builds it once per evaluation, as it does not depend on the replicates; rc_points a CTE);
-- `scored` only decides the exact-sum switch. `samples` names a relation (replicate,
-- participant_id, multiplicity): the point estimate is replicate 0 with every multiplicity 1; a bootstrap
-- replicate is only other weights. Ties enter together; a plateau that only one participant
-- has needs no sum across participants.
-- A shared plateau's sum is exact in any order when every loss of `scored` is integer-valued
-- (plain sum, as for PHQ-8); otherwise it is an fsum in participant_id order (a total order:
-- one cell per participant and plateau), so l never depends on row order or threads. The
-- same one-scan switch as rc_cells, applied to the shared cells before they are joined: as a
-- filter on a join's output it could leave the branch not taken hashing every shared cell.
-- (DuckDB may still inline the two CTEs despite MATERIALIZED; the switch then stays a cross
-- product with the one-row `integral` below the join.) Each branch reads `cells` itself: a
-- CTE of the predicted cells that all three read was copied whole in every replicate chunk,
-- and each branch filtered the copy instead of a pushed-down scan.
CREATE OR REPLACE MACRO rc_plateaus(scored, cells, samples) AS TABLE
WITH integral AS (
    SELECT coalesce(bool_and(loss = floor(loss)), true) AS yes FROM query_table(scored)
),
shared_exact AS MATERIALIZED (
    FROM query_table(cells) WHERE n_pred > 0 AND shared AND (SELECT yes FROM integral)
),
shared_inexact AS MATERIALIZED (
    FROM query_table(cells) WHERE n_pred > 0 AND shared AND NOT (SELECT yes FROM integral)
)
SELECT c.series, s.replicate, c.plateau, c.confidence AS threshold,
       s.multiplicity * c.n_pred AS k, s.multiplicity * c.loss_sum AS l
FROM query_table(cells) AS c
JOIN query_table(samples) AS s USING (participant_id)
WHERE c.n_pred > 0 AND NOT c.shared
UNION ALL
SELECT c.series, s.replicate, c.plateau, any_value(c.confidence),
       sum(s.multiplicity * c.n_pred), sum(s.multiplicity * c.loss_sum)
FROM shared_exact AS c
JOIN query_table(samples) AS s USING (participant_id)
GROUP BY c.series, s.replicate, c.plateau
UNION ALL
SELECT c.series, s.replicate, c.plateau, any_value(c.confidence),
       sum(s.multiplicity * c.n_pred), fsum(s.multiplicity * c.loss_sum ORDER BY c.participant_id)
FROM shared_inexact AS c
JOIN query_table(samples) AS s USING (participant_id)
GROUP BY c.series, s.replicate, c.plateau;
