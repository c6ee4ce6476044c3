-- RC working points of one replicate (docs/metrics.md, working points), each series sorted once:
-- the warehouse's point estimate (riskcov.warehouse.metric_tables). The same rows, bit for bit,
-- as rc_points(scored, samples, totals) when `samples` holds one replicate and every block of
-- `totals` (rc_totals_of) is exact (integer losses, sums below 2^50: every sum below is of
-- integer-valued doubles, exact in any order and grouping); blocks that are not exact get no
-- rows here (the caller takes rc_points for them).
-- `scored` names a relation of rc_scored's shape, `samples` (replicate, participant_id,
-- multiplicity) of one replicate. Instead of rc_cells' cells per participant (sorted by a
-- window) joined to the samples and sorted again by rc_running, a series' units are summed per
-- distinct confidence (its plateau), weighted by their participant's multiplicity, and the
-- plateaus go through one ordered stream: the plateau rank is the stream's row number and
-- k_cum / l_cum its running sums, each minus the series' offset (the rows and sums of the
-- series before it, as rc_running_exact subtracts rc_totals' offsets). A plateau's rank counts
-- every distinct confidence of `scored`, as rc_cells' dense_rank does; a plateau is a working
-- point when a unit of a drawn participant predicted there (rc_plateaus' join).
-- Order: the stream's window functions have no ORDER BY and follow the sorted rows (DuckDB keeps
-- the order of ORDER BY through projections and streaming windows, as rc_running_exact relies
-- on); each row checks it against the row before, so rows out of order raise an error rather
-- than give wrong points. The output is in (series, plateau) order.
-- Grouping puts -0.0 and 0.0 in one plateau; its threshold is confidence + 0.0 (0.0), as in
-- rc_cells.
-- `sources` (series, source) names, for each series of `totals`, the series of `scored` whose
-- units it ranks: series that differ only by their loss's scale (the raw losses the same, as
-- the warehouse's series of one experiment and CSF under `abs` and `abs_norm`) share one
-- source, so their plateaus are summed once and streamed once per series. Each series' rows
-- are those it would get with its own units in `scored`.
CREATE OR REPLACE MACRO rc_points_once(scored, samples, totals, sources) AS TABLE
WITH plateaus AS MATERIALIZED (
    SELECT sc.series AS source, sc.confidence,
           sum(CASE WHEN sc.loss IS NOT NULL THEN s.multiplicity END) AS k,
           sum(s.multiplicity * sc.loss) AS l,
           count(CASE WHEN sc.loss IS NOT NULL THEN s.participant_id END) > 0 AS drawn
    FROM query_table(scored) AS sc
    LEFT JOIN query_table(samples) AS s USING (participant_id)
    GROUP BY sc.series, sc.confidence
),
counts AS (
    SELECT source, count(*) AS n FROM plateaus GROUP BY source
),
blocks AS (
    SELECT t.series, t.replicate, f.source, t.n_total, t.k_total, t.loss_scale, t.k_offset,
           t.l_offset,
           CAST(coalesce(sum(c.n) OVER (ORDER BY t.series ROWS BETWEEN UNBOUNDED PRECEDING
                                                             AND 1 PRECEDING), 0) AS BIGINT)
               AS rank_offset
    FROM query_table(totals) AS t
    JOIN query_table(sources) AS f USING (series)
    JOIN counts AS c USING (source)
    WHERE t.exact
),
ordered AS (
    SELECT b.series, b.replicate, p.confidence, coalesce(CAST(p.k AS DOUBLE), 0.0) AS k,
           coalesce(p.l, 0.0) AS l, p.drawn, b.rank_offset,
           b.n_total, b.k_total, b.loss_scale, b.k_offset, b.l_offset
    FROM plateaus AS p
    JOIN blocks AS b USING (source)
    ORDER BY b.series, p.confidence DESC NULLS LAST
),
running AS (
    SELECT series, replicate, confidence, k, l, drawn, n_total, k_total, loss_scale,
           row_number() OVER () - rank_offset AS plateau,
           sum(k) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - k_offset AS k_cum,
           sum(l) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - l_offset AS l_cum,
           lag(series) OVER () AS series_before,
           lag(confidence) OVER () AS confidence_before
    FROM ordered
),
points AS (
    SELECT series, replicate, plateau, confidence + 0.0 AS threshold, k, k_cum, l_cum,
           l_cum - l AS l_prev, n_total, k_total, loss_scale
    FROM running
    WHERE CASE WHEN series_before > series
                    OR (series_before = series
                        AND (confidence_before IS NULL OR confidence_before <= confidence))
                   THEN error('rc_points_once: plateaus out of order')
               ELSE drawn END
)
FROM rc_point_columns('points');
