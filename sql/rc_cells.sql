-- Per series, participant and distinct confidence: items, predicted items and loss sum, with
-- the plateau rank of the confidence (1 = most confident) and whether other participants
-- share that plateau (only shared plateaus need summing across participants).
-- `scored` names a relation (series, population, participant_id, item_index, confidence, loss,
-- loss_scale): one row per item of an included participant; confidence and loss are NULL
-- when abstained. Losses are in raw units; loss_scale (1 or 3) divides them at the end.
-- Exactness (no number may depend on row order or thread count): when every loss of `scored`
-- is integer-valued (PHQ-8's abs errors, 0/1 losses) a plain sum is exact in any order;
-- otherwise (continuous per-sample losses) a cell's losses are summed by fsum (compensated)
-- in ascending loss order, a total order of the values, so the sum is a function of the
-- cell's multiset of losses (and equals the plain sum for integer losses). One scan decides
-- for the whole relation; the other branch then gets no rows. (A per-row or per-cell choice
-- inside one aggregate keeps DuckDB's ordered-aggregate machinery in the PHQ-8 path, slower
-- there.)
-- A cell's confidence comes out as confidence + 0.0, which turns -0.0 into 0.0: GROUP BY puts
-- -0.0 and 0.0 in one group (they are equal) but keeps whichever sign it meets first, so a
-- plateau holding both (a CSF like -entropy gives -0.0) had a threshold whose sign depended on
-- row order. (Grouping by confidence + 0.0 instead is slower on large per-sample ingests.)
CREATE OR REPLACE MACRO rc_cells(scored) AS TABLE
WITH integral AS (
    SELECT coalesce(bool_and(loss = floor(loss)), true) AS yes FROM query_table(scored)
),
cells AS (
    SELECT series, participant_id, confidence,
           count(*) AS n_items,
           count(loss) AS n_pred,
           coalesce(sum(loss), 0.0) AS loss_sum
    FROM query_table(scored)
    WHERE (SELECT yes FROM integral)
    GROUP BY series, participant_id, confidence
    UNION ALL
    SELECT series, participant_id, confidence,
           count(*) AS n_items,
           count(loss) AS n_pred,
           coalesce(fsum(loss ORDER BY loss), 0.0) AS loss_sum
    FROM query_table(scored)
    WHERE NOT (SELECT yes FROM integral)
    GROUP BY series, participant_id, confidence
)
-- Cells of the same confidence are neighbours in plateau order, so a cell's plateau is shared
-- when the cell before or after it has its confidence: one sort serves both columns (a count
-- over (series, confidence) partitions sorted the cells a second time: ~30 % of this macro on
-- 5 M per-sample cells). The guards tell a missing neighbour from a NULL confidence.
SELECT * REPLACE (confidence + 0.0 AS confidence),
       dense_rank() OVER w AS plateau,
       (row_number() OVER w > 1 AND lag(confidence) OVER w IS NOT DISTINCT FROM confidence)
           OR (lead(true, 1, false) OVER w AND lead(confidence) OVER w IS NOT DISTINCT FROM confidence)
           AS shared
FROM cells
WINDOW w AS (PARTITION BY series ORDER BY confidence DESC NULLS LAST);
