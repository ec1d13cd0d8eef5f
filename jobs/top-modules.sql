-- Where one day's CPU went, per module (executable or shared library), fleet-wide:
-- self = samples whose leaf frame is in the module; total = samples with the module anywhere on
-- the stack. Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] [-d limit=20] jobs/top-modules.sql
CREATE OR REPLACE TEMPORARY VIEW modules AS
SELECT * FROM parquet.`${output:-target/fleet-output}/modules`;

CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM modules
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM modules));

SELECT date,
       format,
       kind,
       coalesce(module, '(no module)')                 AS module,
       sum(self_count)                                 AS self_count,
       sum(total_count)                                AS total_count,
       count(DISTINCT host)                            AS hosts,
       round(100 * sum(self_count) / sum(sum(self_count)) OVER (PARTITION BY format, kind), 2)
                                                       AS self_pct
FROM day
GROUP BY date, format, kind, module
ORDER BY self_count DESC
LIMIT ${limit:-20};
