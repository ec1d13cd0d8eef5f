-- What raw profiles hold (default: the sample data; -d input=DIR for others), per format and kind:
-- rows, summed counts, and time where a count is time.
-- Run: jobs/sql jobs/by-format.sql
CREATE OR REPLACE TEMPORARY VIEW profiles
USING profile OPTIONS (path '${input:-sample-data}');

-- A count is an unsigned 64-bit value in a signed BIGINT: a negative one stands for 2^64 more
-- (0xFFFFFFFFFFFFFFFF reads as -1). DECIMAL(20,0) holds every unsigned 64-bit value exactly.
SELECT format,
       kind,
       count(DISTINCT path)                                  AS files,
       count(*)                                              AS rows,
       sum(unsigned_count)                                   AS total_count,
       round(sum(CASE WHEN period_unit = 'microseconds'
                      THEN CAST(unsigned_count AS DOUBLE) * period / 1e6 END), 3) AS seconds
FROM (SELECT path, format, kind, period, period_unit,
             CASE WHEN count < 0 THEN CAST(count AS DECIMAL(20,0)) + 18446744073709551616
                  ELSE CAST(count AS DECIMAL(20,0)) END AS unsigned_count
      FROM profiles)
GROUP BY format, kind
ORDER BY format, kind;
