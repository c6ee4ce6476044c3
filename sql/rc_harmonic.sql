-- Harmonic numbers H(k) = 1 + 1/2 + ... + 1/k for k = 0..n, as exact HUGEINT prefix sums of
-- floor(2^100 / j) (rc_harmonic_term): H(b) - H(a) = (h_b - h_a) / 2^100 keeps full precision
-- however close a and b are (a double prefix sum would cancel). Used by rc_oracle_of.
CREATE OR REPLACE MACRO rc_harmonic(n) AS TABLE
SELECT range AS k,
       sum(rc_harmonic_term(range))
           OVER (ORDER BY range ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS h
FROM range(0, CAST(n AS BIGINT) + 1);
