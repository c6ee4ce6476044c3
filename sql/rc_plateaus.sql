-- Plateaus of the RC curve (SPEC §4) per series and replicate: every distinct confidence
-- (plateau 1 = most confident) with the predicted items k and raw loss sum l it adds, weighted
-- by the replicate's multiplicities. `samples` names a relation (replicate, participant_id,
-- multiplicity): the point estimate is replicate 0 with every multiplicity 1; a bootstrap
-- replicate is only other weights. Ties enter together; a plateau that only one participant
-- has needs no sum across participants.
-- A shared plateau sums its participants' cells like rc_cells sums losses: integer-valued
-- cell sums by plain sum (exact in any order), the others by fsum in participant_id order (a
-- total order: one cell per participant and plateau), so l does not depend on row order or
-- threads; with integer losses l is the old plain sum.
CREATE OR REPLACE MACRO rc_plateaus(scored, samples) AS TABLE
WITH cells AS (
    FROM rc_cells(scored) WHERE n_pred > 0
)
SELECT c.series, s.replicate, c.plateau, c.confidence AS threshold,
       s.multiplicity * c.n_pred AS k, s.multiplicity * c.loss_sum AS l
FROM cells AS c
JOIN query_table(samples) AS s USING (participant_id)
WHERE NOT c.shared
UNION ALL
SELECT c.series, s.replicate, c.plateau, any_value(c.confidence),
       sum(s.multiplicity * c.n_pred),
       coalesce(sum(s.multiplicity * c.loss_sum) FILTER (WHERE c.loss_sum = floor(c.loss_sum)), 0.0)
           + coalesce(fsum(s.multiplicity * c.loss_sum ORDER BY c.participant_id)
                          FILTER (WHERE c.loss_sum <> floor(c.loss_sum)), 0.0)
FROM cells AS c
JOIN query_table(samples) AS s USING (participant_id)
WHERE c.shared
GROUP BY c.series, s.replicate, c.plateau;
