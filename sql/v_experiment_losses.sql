-- The losses each experiment supports, as data of the experiment (docs/metrics.md, docs/formats.md):
-- PHQ-8 items (loss_kind abs_error) have abs = |pred - gt| and abs_norm = abs / score range
-- (the default); per-sample runs (loss_kind given) have the file's loss as it is. loss_scale
-- divides the raw loss sums; raw_multiplier is the artifact's name for it.
CREATE OR REPLACE VIEW v_experiment_losses AS
SELECT e.experiment_id, l.loss, l.is_default,
       CASE l.loss WHEN 'abs_norm' THEN e.score_max - e.score_min ELSE 1 END AS loss_scale,
       CASE l.loss WHEN 'abs' THEN 'abs(pred - gt)'
                   WHEN 'abs_norm' THEN 'abs(pred - gt) / ' || CAST(e.score_max - e.score_min AS VARCHAR)
                   ELSE 'as given' END AS definition
FROM experiments AS e
JOIN (VALUES ('abs_error', 'abs', false), ('abs_error', 'abs_norm', true), ('given', 'given', true))
    AS l(loss_kind, loss, is_default) USING (loss_kind);
