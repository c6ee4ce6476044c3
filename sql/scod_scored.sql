-- The scored relation of selective classification with OOD samples in the pool (SCOD,
-- docs/metrics-extended.md): ID and OOD samples ranked together by one confidence, one series
-- per (CSF, cost c_OOD) with the loss of an accepted sample 0 for a correct ID sample,
-- (1 - c_OOD) x its loss for a wrong ID sample (0/1 losses: 1 - c_OOD), and c_OOD for an OOD
-- sample whatever its own loss; abstained samples count in N and are never accepted. Every
-- rc_* macro then reads it as any scored relation, so SCOD-AURC, SCOD-AUGRC and
-- Coverage@Risk are aurc_full, augrc_full and Coverage@Risk of these series.
-- `units` names a relation (csf_no, ood, participant_id, item_index, confidence, abstained,
-- loss); `costs` a list of c_OOD values; series = csf_no x (number of costs) + the cost's
-- position, population = the cost's position (the losses depend on the cost, not the CSF).
CREATE OR REPLACE MACRO scod_scored(units, costs) AS TABLE
WITH cost_list AS (
    SELECT CAST(unnest(costs) AS DOUBLE) AS c_ood, CAST(generate_subscripts(costs, 1) - 1 AS INTEGER) AS c_no
)
SELECT CAST(u.csf_no * len(costs) + k.c_no AS INTEGER) AS series, k.c_no AS population,
       u.participant_id, u.item_index,
       CASE WHEN u.abstained THEN NULL ELSE u.confidence END AS confidence,
       CASE WHEN u.abstained THEN NULL
            WHEN u.ood THEN k.c_ood
            ELSE (1.0 - k.c_ood) * u.loss END AS loss,
       1.0 AS loss_scale
FROM query_table(units) AS u
CROSS JOIN cost_list AS k;
