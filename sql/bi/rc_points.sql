-- Contract: the rows of v_rc_points (one per experiment x supported CSF x loss x working point),
-- without the `series` struct (it repeats experiment_id, csf, loss and BI tools and CSV show it
-- badly), in key order. `riskcov publish` stores it as the snapshot's table `rc_points`;
-- `riskcov export` writes it as rc_points.parquet / rc_points.csv.
SELECT * EXCLUDE (series)
FROM v_rc_points
ORDER BY experiment_id, csf, loss, replicate, plateau
