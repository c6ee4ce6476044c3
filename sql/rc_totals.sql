-- N (items) and K (predicted items) per series and replicate; a sample row weights a participant.
CREATE OR REPLACE MACRO rc_totals(scored, samples) AS TABLE
SELECT c.series, s.replicate,
       sum(s.multiplicity * c.n_items) AS n_total,
       sum(s.multiplicity * c.n_pred) AS k_total
FROM rc_cells(scored) AS c
JOIN query_table(samples) AS s USING (participant_id)
GROUP BY c.series, s.replicate;
