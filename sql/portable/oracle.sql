-- portable: oracle
-- reads: scored, samples, totals
-- columns: series, replicate, aurc_optimal, augrc_optimal, losses_binary, aurc_optimal_population
-- Optimal (oracle) AURC and AUGRC per series and replicate (docs/metrics.md): predicted units
-- ranked by loss ascending, one working point per unit, in closed form over runs of equal
-- loss: a run of c units of loss v after a units with loss sum La adds
--   sum_k L_k = c*La + v*c*(c+1)/2,   sum_k L_k/k = c*v + (La - a*v) * (H(a+c) - H(a))
-- with harmonic numbers H: up to 32 as exact integers H(n) * lcm(1..32) (below 2^53, so a
-- difference is exact before its one rounding), above it the asymptotic series
-- ln n + gamma + 1/(2n) - 1/(12n^2) + 1/(120n^4) - 1/(252n^6) (error below 1e-17), and for a > 32
-- the difference as ln((a+c)/a) plus the series' tails, so close a and a+c do not cancel.
-- The runs are summed by running windows ORDER BY loss. Also fd-shifts' continuous-coverage
-- optimum, defined when every loss is 0 or loss_scale (losses_binary): with E = L / N and
-- Cmax = K / N, E + (Cmax - E) * ln((Cmax - E + eps) / Cmax).
WITH losses AS (
    SELECT series, cluster, loss, count(*) AS n, max(loss_scale) AS loss_scale
    FROM scored
    WHERE loss IS NOT NULL
    GROUP BY series, cluster, loss
),
kinds AS (
    SELECT series, min(CASE WHEN loss = 0 OR loss = loss_scale THEN 1 ELSE 0 END) = 1 AS losses_binary
    FROM losses
    GROUP BY series
),
runs AS (
    SELECT l.series, s.replicate, l.loss AS v, max(l.loss_scale) AS loss_scale,
           sum(s.multiplicity * l.n) AS c
    FROM losses AS l
    JOIN samples AS s ON s.cluster = l.cluster
    GROUP BY l.series, s.replicate, l.loss
),
placed AS (
    SELECT series, replicate, v, loss_scale, c,
           coalesce(sum(c) OVER (PARTITION BY series, replicate ORDER BY v
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS a,
           coalesce(sum(CAST(c AS DECIMAL(10, 0)) * CAST(v AS DECIMAL(27, 18)))
                        OVER (PARTITION BY series, replicate ORDER BY v
                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS la
    FROM runs
),
small_h AS (
    SELECT k, CAST(h AS DOUBLE) AS h
    FROM (VALUES
        (0, 0), (1, 144403552893600), (2, 216605329340400), (3, 264739846971600),
        (4, 300840735195000), (5, 329721445773720), (6, 353788704589320), (7, 374417783574120),
        (8, 392468227685820), (9, 408513066896220), (10, 422953422185580), (11, 436081017903180),
        (12, 448114647310980), (13, 459222612918180), (14, 469537152410580), (15, 479164055936820),
        (16, 488189277992670), (17, 496683604633470), (18, 504706024238670), (19, 512306211233070),
        (20, 519526388877750), (21, 526402748539350), (22, 532966546398150), (23, 539244961741350),
        (24, 545261776445250), (25, 551037918560994), (26, 556591901364594), (27, 561940181101394),
        (28, 567097450847594), (29, 572076883705994), (30, 576890335469114), (31, 581548514594714),
        (32, 586061125622639)) AS t(k, h)
),
bounds AS (
    SELECT p.series, p.replicate, p.loss_scale, p.v, p.c, p.a, p.la,
           CAST(p.a AS DOUBLE) AS ad, CAST(p.a + p.c AS DOUBLE) AS bd,
           ha.h AS ha, hb.h AS hb
    FROM placed AS p
    LEFT JOIN small_h AS ha ON ha.k = p.a
    LEFT JOIN small_h AS hb ON hb.k = p.a + p.c
),
harmonic AS (
    SELECT series, replicate, loss_scale, v, c, a, la,
           CASE WHEN hb IS NOT NULL THEN (hb - ha) / 144403552893600.0
                WHEN ha IS NOT NULL
                    THEN (ln(bd) + 0.5772156649015329 + 1.0 / (2.0 * bd) - 1.0 / (12.0 * bd * bd)
                          + 1.0 / (120.0 * bd * bd * bd * bd) - 1.0 / (252.0 * bd * bd * bd * bd * bd * bd)) - ha / 144403552893600.0
                ELSE ln(bd / ad)
                     + ((1.0 / (2.0 * bd) - 1.0 / (12.0 * bd * bd) + 1.0 / (120.0 * bd * bd * bd * bd)
                         - 1.0 / (252.0 * bd * bd * bd * bd * bd * bd))
                        - (1.0 / (2.0 * ad) - 1.0 / (12.0 * ad * ad) + 1.0 / (120.0 * ad * ad * ad * ad)
                           - 1.0 / (252.0 * ad * ad * ad * ad * ad * ad)))
           END AS h_diff
    FROM bounds
),
terms AS (
    SELECT series, replicate, loss_scale, v, c,
           CAST(c AS DOUBLE) * CAST(la AS DOUBLE) + v * CAST(c AS DOUBLE) * (CAST(c AS DOUBLE) + 1.0) / 2.0
               AS sum_l,
           CAST(c AS DOUBLE) * v + (CAST(la AS DOUBLE) - CAST(a AS DOUBLE) * v) * h_diff AS sum_r,
           CAST(la + CAST(c AS DECIMAL(10, 0)) * CAST(v AS DECIMAL(27, 18)) AS DOUBLE) AS l_last,
           a + c AS k
    FROM harmonic
),
folded AS (
    SELECT series, replicate, loss_scale, l_last, k,
           sum(sum_l) OVER (PARTITION BY series, replicate ORDER BY v
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sum_l,
           sum(sum_r) OVER (PARTITION BY series, replicate ORDER BY v
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sum_r,
           first_value(v) OVER (PARTITION BY series, replicate ORDER BY v
                                ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS r_first,
           row_number() OVER (PARTITION BY series, replicate ORDER BY v DESC) AS from_last
    FROM terms
),
last_run AS (
    SELECT * FROM folded WHERE from_last = 1
),
scaled AS (
    SELECT t.series, t.replicate, CAST(t.n_total AS DOUBLE) AS n, f.sum_l, f.sum_r, f.r_first,
           f.loss_scale, f.l_last, CAST(f.k AS DOUBLE) AS k
    FROM totals AS t
    LEFT JOIN last_run AS f ON f.series = t.series AND f.replicate = t.replicate
)
SELECT s.series, s.replicate,
       coalesce((s.sum_r + (s.r_first - s.l_last / s.k) / 2.0) / s.loss_scale / s.n, 0.0) AS aurc_optimal,
       coalesce((s.sum_l - s.l_last / 2.0) / s.loss_scale / s.n / s.n, 0.0) AS augrc_optimal,
       k.losses_binary,
       CASE WHEN k.losses_binary IS NULL OR NOT k.losses_binary THEN NULL
            WHEN coalesce(s.k, 0.0) = 0.0 THEN 0.0
            ELSE s.l_last / s.loss_scale / s.n
                 + (s.k / s.n - s.l_last / s.loss_scale / s.n)
                   * ln((s.k / s.n - s.l_last / s.loss_scale / s.n + 2.220446049250313e-16) / (s.k / s.n))
       END AS aurc_optimal_population
FROM scaled AS s
LEFT JOIN kinds AS k ON k.series = s.series
