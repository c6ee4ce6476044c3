-- ID and OOD acceptance at given thresholds (docs: risk control and OOD), per series and
-- threshold position. `samples` names a relation (series, domain 'id' or 'ood', abstained
-- BOOLEAN, confidence DOUBLE); `thresholds` names a relation (series, position, threshold
-- DOUBLE; a NULL threshold accepts nothing). A sample is accepted when it is not abstained and
-- its confidence >= the threshold; a domain's rate is over all of its samples (abstentions
-- count in the denominator), 0 for a domain without samples. One row per threshold row whose
-- series has samples: series, position, id_accept_rate, ood_accept_rate; in no particular
-- order. rc_ood_at_id_coverage reads its rates here, `riskcov ood`'s DAR at thresholds too.
CREATE OR REPLACE MACRO rc_ood_acceptance(samples, thresholds) AS TABLE
SELECT t.series, t.position,
       coalesce(count(*) FILTER (WHERE x.domain = 'id' AND NOT x.abstained
                                 AND x.confidence >= t.threshold)
                / nullif(count(*) FILTER (WHERE x.domain = 'id'), 0), 0.0) AS id_accept_rate,
       coalesce(count(*) FILTER (WHERE x.domain = 'ood' AND NOT x.abstained
                                 AND x.confidence >= t.threshold)
                / nullif(count(*) FILTER (WHERE x.domain = 'ood'), 0), 0.0) AS ood_accept_rate
FROM query_table(thresholds) AS t
JOIN query_table(samples) AS x ON x.series = t.series
GROUP BY t.series, t.position;
