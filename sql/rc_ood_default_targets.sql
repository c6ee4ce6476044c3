-- The ID coverage targets OOD acceptance is reported at unless others are asked for: the
-- view v_ood_at_id_coverage uses them, and `riskcov ood --id-coverage` defaults to them
-- (riskcov.riskcontrol.ood.DEFAULT_TARGETS reads the list from this file, so it is written only here).
CREATE OR REPLACE MACRO rc_ood_default_targets() AS [0.6, 0.7, 0.8, 0.9]::DOUBLE[];
