-- Effective reliability (docs/metrics-extended.md) per series, replicate and cost c of a list:
-- each accepted unit scores (1 - loss) - c * loss (with 0/1 losses +1 when right, -c when
-- wrong), an abstained or rejected one 0, averaged over the N units: at a working point
-- Phi_c = (k_cum - (1 + c) * L) / N with L the accepted loss in loss units. Per cost the best
-- threshold: the working point of the largest Phi_c, ties to the fewer accepted units (the
-- lower plateau), or accepting nothing (Phi_c = 0, threshold NULL, coverage 0) when no point
-- is above 0. Points are compared by N * loss_scale * Phi_c = k_cum * loss_scale - (1 + c) *
-- l_cum (raw loss), exact for integer losses and costs such as 0.5, 1, 2, 4, so equal values
-- tie exactly rather than by the last bit of a ratio.
-- It runs on every bootstrap replicate, so the costs multiply few rows and no window sorts
-- the points: of the points of a block with equal l_cum only the one with the most accepted
-- units can win, for every cost (a larger k_cum, the same loss). One GROUP BY keeps those
-- candidates (about a third of the points of PHQ-8's abs losses), then one max per block and
-- cost picks the best of them: within a block k_cum grows with the plateau, so the key
-- (gain, -k_cum) ties to the lower plateau, and a candidate's k_cum names it (its threshold
-- rides along; coverage is k_cum / n_total, as rc_point_columns computes it).
-- Where every gain is exact (the packed key below) the candidates need no GROUP BY: a point
-- is dropped only when the next row (lead, no ORDER BY, so in whatever order the rows come)
-- is of the same block and l_cum with a larger k_cum, an exactly larger gain for every cost.
-- Whatever the order, each group's point of most units stays (no row of its group has more),
-- and the points that stay besides have smaller exact keys, so the max is the same; in
-- `evaluate`'s stored order (each block's points contiguous, in plateau order) exactly the
-- GROUP BY's candidates stay. Of those, a point is dropped too when the rows before and after
-- it are of its block with fewer and more units and it lies on or above their chord in the
-- (k_cum, l_cum) plane: the gain is affine there and falls with l_cum, so its gain is at most
-- the larger of theirs for every cost, and equal only when all three are equal, where the one
-- of fewer units wins. So it never wins, whichever rows are dropped beside it (about half of
-- PHQ-8's candidates). The chord test is exact in doubles (integer values below 2^25: every
-- difference exact, every product below 2^51); other rows stay.
-- `points` names working points (rc_points' columns threshold, k_cum and l_cum), `totals`
-- their rc_totals (n_total and loss_scale; every block of `totals` gets rows, so one without
-- points gets Phi_c = 0 at no threshold).
-- `unit` and `k_base` (both NULL, or both powers of two) let the per-cost max compare one
-- double instead of the (gain, -k_cum) struct, with the same result: the caller vouches that
-- every gain is an exact multiple of `unit`, that 0 <= k_cum < k_base, and that
-- (max |gain| / unit + 1) * k_base <= 2^53 (metrics/cost_curves.py checks it). Then
-- key = (gain / unit) * k_base + (k_base - 1 - k_cum) is an exact integer, larger exactly when
-- the gain is larger or, at equal gains, k_cum smaller, so the max key is the struct's max, and
-- floor(key / k_base) and the remainder give back the gain and k_cum bit for bit; the threshold
-- is that of the max key (unique: k_cum differs between a block's candidates). DuckDB
-- compares doubles far faster than structs (docs/performance.md); other callers leave both
-- NULL and keep the struct max.
CREATE OR REPLACE MACRO rc_effective_reliability(points, totals, costs, unit := NULL, k_base := NULL) AS TABLE
WITH cost_list AS (
    SELECT DISTINCT CAST(unnest(costs) AS DOUBLE) AS cost
),
blocks AS (  -- from the totals: a block with no working point accepts nothing
    SELECT DISTINCT series, replicate FROM query_table(totals)
),
candidates AS (  -- per block and accepted loss the point with the most accepted units
    SELECT series, replicate, l_cum, max(k_cum) AS k_cum, arg_max(threshold, k_cum) AS threshold
    FROM query_table(points)
    WHERE unit IS NULL
    GROUP BY series, replicate, l_cum
),
followed AS (  -- the packed key's candidates: every point that its next row does not beat outright
    SELECT series, replicate, l_cum, k_cum, threshold
    FROM (SELECT series, replicate, threshold, k_cum, l_cum,
                 lead(series) OVER () AS next_series, lead(replicate) OVER () AS next_replicate,
                 lead(l_cum) OVER () AS next_l_cum, lead(k_cum) OVER () AS next_k_cum
          FROM query_table(points) WHERE unit IS NOT NULL)
    WHERE NOT ((next_series = series AND next_replicate = replicate AND next_l_cum = l_cum
                AND next_k_cum > k_cum) IS TRUE)
),
bent AS (  -- of those, every point but one on or above the chord of the rows around it
    SELECT series, replicate, l_cum, k_cum, threshold
    FROM (SELECT *, lag(series) OVER () AS prev_series, lag(replicate) OVER () AS prev_replicate,
                 lag(k_cum) OVER () AS prev_k_cum, lag(l_cum) OVER () AS prev_l_cum,
                 lead(series) OVER () AS next_series, lead(replicate) OVER () AS next_replicate,
                 lead(k_cum) OVER () AS next_k_cum, lead(l_cum) OVER () AS next_l_cum
          FROM followed)
    WHERE NOT ((prev_series = series AND prev_replicate = replicate
                AND next_series = series AND next_replicate = replicate
                AND prev_k_cum < k_cum AND k_cum < next_k_cum
                AND greatest(abs(prev_l_cum), abs(l_cum), abs(next_l_cum), abs(prev_k_cum), abs(next_k_cum)) < 33554432
                AND prev_l_cum = floor(prev_l_cum) AND l_cum = floor(l_cum) AND next_l_cum = floor(next_l_cum)
                AND prev_k_cum = floor(prev_k_cum) AND k_cum = floor(k_cum) AND next_k_cum = floor(next_k_cum)
                AND (l_cum - prev_l_cum) * (next_k_cum - prev_k_cum)
                    >= (next_l_cum - prev_l_cum) * (k_cum - prev_k_cum)) IS TRUE)
),
scaled AS (
    SELECT p.series, p.replicate, c.cost, p.threshold, p.k_cum, t.n_total,
           p.k_cum * t.loss_scale - (1 + c.cost) * p.l_cum AS gain, t.loss_scale * t.n_total AS scale
    FROM (FROM candidates UNION ALL FROM bent) AS p
    JOIN query_table(totals) AS t USING (series, replicate)
    CROSS JOIN cost_list AS c
),
best AS (  -- per block and cost the candidate of the largest gain, ties to the fewer units
    SELECT series, replicate, cost, any_value(scale) AS scale, any_value(n_total) AS n_total,
           max({'gain': gain, 'fewer': -k_cum, 'threshold': threshold}) AS b
    FROM scaled
    WHERE unit IS NULL
    GROUP BY series, replicate, cost
    UNION ALL
    SELECT series, replicate, cost, scale, n_total,
           {'gain': g * unit, 'fewer': CAST((key - g * k_base) - (k_base - 1) AS BIGINT), 'threshold': threshold}
    FROM (
        SELECT *, floor(key / k_base) AS g FROM (
            SELECT series, replicate, cost, any_value(scale) AS scale, any_value(n_total) AS n_total,
                   max(key) AS key, arg_max_null(threshold, key) AS threshold
            FROM (SELECT *, (gain / unit) * k_base + (k_base - 1 - k_cum) AS key FROM scaled
                  WHERE unit IS NOT NULL)
            GROUP BY series, replicate, cost
        )
    )
),
phis AS (
    SELECT series, replicate, cost, b.gain / scale AS phi, b.threshold, -b.fewer / n_total AS coverage
    FROM best
)
SELECT k.series, k.replicate, c.cost,
       CASE WHEN r.phi > 0 THEN r.phi ELSE 0.0 END AS phi,
       CASE WHEN r.phi > 0 THEN r.threshold END AS threshold,
       CASE WHEN r.phi > 0 THEN r.coverage ELSE 0.0 END AS coverage
FROM blocks AS k
CROSS JOIN cost_list AS c
LEFT JOIN phis AS r ON r.series = k.series AND r.replicate = k.replicate AND r.cost = c.cost;
