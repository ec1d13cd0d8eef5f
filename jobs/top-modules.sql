-- Where one day's CPU went, per module (executable or shared library), fleet-wide:
-- self = time whose leaf frame is in the module; total = time with the module anywhere on the
-- stack. One measure: CPU time by default (seconds), or -d measure=calls, ...
-- -d DIMENSION=VALUE (e.g. -d service=api) keeps the hosts' rows of that directory level's value.
-- Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] [-d measure=cpu] [-d DIMENSION=VALUE ...] [-d limit=20] jobs/top-modules.sql
CREATE OR REPLACE TEMPORARY VIEW modules AS
SELECT * FROM fleet_modules
WHERE measure = '${measure:-cpu}' AND ${dimension_filter};

CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM modules
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM modules));

CREATE OR REPLACE TEMPORARY VIEW per_module AS
SELECT date,
       coalesce(module, '(no module)')                 AS module,
       unit,
       sum(self_value)                                 AS self_value,
       sum(total_value)                                AS total_value,
       sum(self_count)                                 AS self_count,
       count(DISTINCT host)                            AS hosts
FROM day
GROUP BY date, module, unit;

SELECT date,
       module,
       round(self_value / CASE unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3)  AS self,
       round(100 * self_value / (SELECT sum(self_value) FROM per_module), 2)             AS self_pct,
       round(total_value / CASE unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3) AS total,
       CASE unit WHEN 'nanoseconds' THEN 's' ELSE unit END                               AS unit,
       self_count,
       nullif(hosts, 0)                                                                  AS hosts
FROM per_module
ORDER BY self_value DESC, module
LIMIT ${limit:-20};
