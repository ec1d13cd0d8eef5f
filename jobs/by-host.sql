-- One day per host: files read, files with problems, records, samples and share of the fleet,
-- and the module that used the most CPU there.
-- Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] jobs/by-host.sql
CREATE OR REPLACE TEMPORARY VIEW files AS
SELECT * FROM parquet.`${output:-target/fleet-output}/files`;
CREATE OR REPLACE TEMPORARY VIEW modules AS
SELECT * FROM parquet.`${output:-target/fleet-output}/modules`;

CREATE OR REPLACE TEMPORARY VIEW chosen AS
SELECT coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM files)) AS date;

WITH per_host AS (
  SELECT host,
         count(*)                                  AS files,
         count_if(problems > 0)                    AS files_with_problems,
         sum(records)                              AS records,
         sum(count)                                AS count
  FROM files WHERE date = (SELECT date FROM chosen)
  GROUP BY host
),
top_module AS (
  SELECT host, max_by(module, self_count) AS top_module, max(self_count) AS top_module_self
  FROM (SELECT host, module, sum(self_count) AS self_count
        FROM modules WHERE date = (SELECT date FROM chosen) AND kind = 'sample'
        GROUP BY host, module)
  GROUP BY host
)
SELECT (SELECT date FROM chosen)                    AS date,
       coalesce(p.host, '(no host= directory)')     AS host,
       p.files, p.files_with_problems, p.records, p.count,
       round(100 * p.count / sum(p.count) OVER (), 2) AS pct_of_fleet,
       regexp_extract(t.top_module, '[^/]*$', 0)    AS top_module,
       t.top_module_self
FROM per_host p LEFT JOIN top_module t ON p.host <=> t.host
ORDER BY p.count DESC;
