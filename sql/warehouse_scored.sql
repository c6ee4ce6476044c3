-- The units of `confidences` (warehouse_confidences) of every series of `series`
-- (warehouse_series: the supported CSFs under each loss, with their integer keys), as the
-- scored relation the rc_* macros read: the input of the warehouse's own metrics
-- (riskcov.warehouse.metric_tables, over the experiments an ingest adds, a few CSFs at a time; v_scored
-- over every experiment).
CREATE OR REPLACE MACRO warehouse_scored(confidences, series) AS TABLE
WITH labelled AS (
    SELECT k.series, k.population, c.experiment_id, k.loss, c.participant_id, c.item_index,
           c.confidence, c.abstained, c.loss_raw
    FROM query_table(confidences) AS c
    JOIN query_table(series) AS k USING (experiment_id, csf)
)
FROM rc_scored(labelled);
