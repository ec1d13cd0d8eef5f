-- One day's hottest code locations (module + offset in the module's file, and the function there),
-- fleet-wide, as `pprof -top -addresses` shows them: flat (self, the leaf) and cumulative (total,
-- anywhere on the stack). One measure: CPU time by default (seconds), or -d measure=calls, ...
-- Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] [-d measure=cpu] [-d limit=20] jobs/top-locations.sql
CREATE OR REPLACE TEMPORARY VIEW locations AS
SELECT * FROM fleet_locations
WHERE measure = '${measure:-cpu}';

CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM locations
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM locations));

SELECT date,
       format,
       concat(coalesce(regexp_extract(module, '[^/]*$', 0), '?'), '+0x', lower(hex(offset)))
                                                               AS location,
       element_at(lines, 1).function                           AS function,
       round(self_value / CASE unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3)  AS self,
       round(100 * self_value / (SELECT sum(self_value) FROM day), 2)                    AS self_pct,
       round(total_value / CASE unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3) AS total,
       round(100 * total_value / (SELECT sum(self_value) FROM day), 2)                   AS total_pct,
       CASE unit WHEN 'nanoseconds' THEN 's' ELSE unit END                               AS unit,
       self_count,
       total_count
FROM day
ORDER BY self_value DESC, total_value DESC, location
LIMIT ${limit:-20};
