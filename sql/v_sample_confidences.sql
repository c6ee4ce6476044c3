-- Every sample of every per-sample experiment with each of its scores (docs/formats.md): the
-- per-sample counterpart of v_csf_confidences, in the columns rc_scored reads.
CREATE OR REPLACE VIEW v_sample_confidences AS
SELECT u.experiment_id, sc.csf, u.participant_id, u.sample_index AS item_index,
       sc.confidence, u.abstained, u.loss AS loss_raw,
       CASE WHEN NOT u.abstained AND sc.confidence IS NULL THEN 'the confidence is null'
            WHEN NOT u.abstained AND NOT isfinite(sc.confidence)
                THEN 'the confidence is ' || CAST(sc.confidence AS VARCHAR) || ', not a finite number'
       END AS problem
FROM v_sample_units AS u
JOIN sample_scores AS sc USING (experiment_id, sample_index);
