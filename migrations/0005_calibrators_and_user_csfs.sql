-- Calibration (SPEC §11) and user-defined CSFs. Every fitted calibrator is kept, so
-- `evaluate --calibration ID` can use it; user_csfs are named SQL expressions over the signal
-- columns of item_signals (checked against an allow-list before they are stored), scored in
-- v_csf_confidences like the built-in CSFs.

CREATE SEQUENCE calibrator_id_seq START 1;

-- artifact: the calibrator file as written (SPEC §11 format with fitted_on and metrics);
-- sha256 of that text, so an artifact that used it can name exactly which one.
CREATE TABLE calibrators (
    calibrator_id INTEGER PRIMARY KEY,
    method VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,
    artifact JSON NOT NULL,
    created_at TIMESTAMP NOT NULL
);

-- expression: the user's text; it is compiled again (allow-list, canonical SQL) wherever used.
CREATE TABLE user_csfs (
    name VARCHAR PRIMARY KEY,
    expression VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL
);
