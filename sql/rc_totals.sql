-- N (items), K (predicted items) and the loss sum per series and replicate, with the offsets
-- rc_running needs (rc_totals_of, which says how): rc_series and rc_people of `scored`
-- weighted by `samples` (replicate, participant_id, multiplicity). `evaluate` builds those two
-- once per evaluation and calls rc_totals_of per chunk of replicates.
CREATE OR REPLACE MACRO rc_totals(scored, samples) AS TABLE
WITH series_of AS (
    FROM rc_series(scored)
),
people_of AS (
    FROM rc_people(scored)
)
FROM rc_totals_of('series_of', 'people_of', samples);
