-- The class-balanced areas (docs/metrics-extended.md) as columns of the stored point metrics:
-- set for per-sample experiments whose samples all carry a label, NULL for the others. A
-- warehouse's SQL objects change with this release, so its metrics are recomputed (and these
-- columns filled) when it is next opened.
ALTER TABLE metrics ADD COLUMN aurc_ba DOUBLE;
ALTER TABLE metrics ADD COLUMN augrc_ba DOUBLE;
COMMENT ON COLUMN metrics.aurc_ba IS 'Class-balanced AURC (fd-shifts AURC-BA without x1000); NULL without labels.';
COMMENT ON COLUMN metrics.augrc_ba IS 'Class-balanced AUGRC (fd-shifts AUGRC-BA without x1000); NULL without labels.';
