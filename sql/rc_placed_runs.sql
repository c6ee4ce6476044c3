-- The oracle's runs placed (rc_oracle_placed): each run of `runs` (population, replicate, v,
-- loss_scale, c: rc_loss_runs' rows or the same sums) with a, the items of loss below v in its
-- population and replicate, and la, their loss sum (v * c summed over those runs, in v order).
CREATE OR REPLACE MACRO rc_placed_runs(runs) AS TABLE
SELECT *,
       coalesce(sum(c) OVER w, 0) AS a,
       coalesce(sum(c * v) OVER w, 0.0) AS la
FROM query_table(runs)
WINDOW w AS (PARTITION BY population, replicate ORDER BY v
             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);
