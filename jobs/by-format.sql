-- What the sample data holds, per format and kind: rows, summed counts, and time where a count is time.
-- Run: jobs/sql jobs/by-format.sql
CREATE OR REPLACE TEMPORARY VIEW profiles
USING profile OPTIONS (path 'sample-data');

SELECT format,
       kind,
       count(DISTINCT path)                                  AS files,
       count(*)                                              AS rows,
       sum(CAST(count AS DECIMAL(38,0)))                     AS total_count,
       round(sum(CASE WHEN period_unit = 'microseconds'
                      THEN CAST(count AS DOUBLE) * period / 1e6 END), 3) AS seconds
FROM profiles
GROUP BY format, kind
ORDER BY format, kind;
