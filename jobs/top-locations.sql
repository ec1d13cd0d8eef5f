-- One day's hottest code locations (module + offset in the module's file), fleet-wide, as pprof
-- -top shows them: flat (self, the leaf) and cumulative (total, anywhere on the stack).
-- Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] [-d limit=20] jobs/top-locations.sql
CREATE OR REPLACE TEMPORARY VIEW locations AS
SELECT * FROM parquet.`${output:-target/fleet-output}/locations`;

CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM locations
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM locations));

SELECT date,
       format,
       kind,
       concat(coalesce(regexp_extract(module, '[^/]*$', 0), '?'), '+0x', lower(hex(offset)))
                                                               AS location,
       self_count,
       round(100 * self_count / sum(self_count) OVER (PARTITION BY format, kind), 2) AS self_pct,
       total_count,
       round(100 * total_count / sum(self_count) OVER (PARTITION BY format, kind), 2) AS total_pct
FROM day
ORDER BY self_count DESC, total_count DESC
LIMIT ${limit:-20};
