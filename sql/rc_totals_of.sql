-- N (items), K (predicted items) and the loss sum per series and replicate; a sample row
-- weights a participant. Counted per population (they do not depend on the CSF), then fanned
-- out. Loss sums as in rc_cells / rc_plateaus: plain sums (exact in any order) when every loss
-- of `scored` is integer-valued, else fsum in a total order (loss, then participant_id).
-- exact: the block's losses are all integer-valued and the loss sums of all such blocks stay
-- below 2^50, so every running sum of rc_running is an exact integer in any order and the
-- block takes its fast path (one ordered stream over all exact blocks, minus per-block
-- offsets); other blocks take rc_running's exact-limb path.
-- k_offset / l_offset: the sums of every exact (series, replicate) block before this one in
-- (series, replicate) order, which rc_running subtracts from its stream's running sums.
-- `series_info` names rc_series(scored), `people` rc_people(scored) (built once per evaluation),
-- `samples` the replicates' weights; rc_totals composes them from `scored`. The blocks and
-- offsets are rc_totals_weighted's, which the sort-once path of `evaluate` also feeds with
-- the same weighted sums taken without a join (metrics/plateau_stream.py).
CREATE OR REPLACE MACRO rc_totals_of(series_info, people, samples) AS TABLE
WITH weighted AS (
    SELECT p.population, s.replicate,
           CAST(sum(s.multiplicity * p.n_items) AS BIGINT) AS n_total,
           CAST(sum(s.multiplicity * p.n_pred) AS BIGINT) AS k_total,
           sum(s.multiplicity * p.loss_sum) AS l_total, true AS integral
    FROM query_table(people) AS p
    JOIN query_table(samples) AS s USING (participant_id)
    WHERE p.all_integral
    GROUP BY p.population, s.replicate
    UNION ALL
    SELECT p.population, s.replicate,
           CAST(sum(s.multiplicity * p.n_items) AS BIGINT) AS n_total,
           CAST(sum(s.multiplicity * p.n_pred) AS BIGINT) AS k_total,
           fsum(s.multiplicity * p.loss_sum ORDER BY p.participant_id) AS l_total,
           bool_and(p.integral) AS integral
    FROM (FROM query_table(people) WHERE NOT all_integral) AS p
    JOIN query_table(samples) AS s USING (participant_id)
    GROUP BY p.population, s.replicate
)
FROM rc_totals_weighted(series_info, 'weighted');
