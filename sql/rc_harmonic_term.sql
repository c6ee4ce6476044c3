-- floor(2^100 / j), the terms of rc_harmonic's prefix sums (0 for j = 0): for 1 <= j < 2^31 by
-- long division in base 2^32 on BIGINTs (2^100 = 16 * 2^96; each remainder, shifted by 32 bits,
-- stays below 2^63), the same integer as HUGEINT division, which costs several times more;
-- beyond that, HUGEINT division.
CREATE OR REPLACE MACRO rc_harmonic_term(j) AS
CASE WHEN j BETWEEN 1 AND 2147483647 THEN
         (CAST(16 // j AS HUGEINT) << 96)
         + (CAST(((16 % j) << 32) // j AS HUGEINT) << 64)
         + (CAST(((((16 % j) << 32) % j) << 32) // j AS HUGEINT) << 32)
         + ((((((16 % j) << 32) % j) << 32) % j) << 32) // j
     WHEN j > 0 THEN (1::HUGEINT << 100) // j
     ELSE 0::HUGEINT END;
