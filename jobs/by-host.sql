-- One day per host: files read, files with problems, records, CPU time (or -d measure=...) and
-- the host's share of the fleet's, and the module that used the most there.
-- -d DIMENSION=VALUE (e.g. -d service=api) keeps the files and rows of that directory level's
-- value; shares are then of what is kept.
-- Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] [-d measure=cpu] [-d DIMENSION=VALUE ...] jobs/by-host.sql
CREATE OR REPLACE TEMPORARY VIEW files AS
SELECT * FROM fleet_files WHERE ${dimension_filter};
CREATE OR REPLACE TEMPORARY VIEW host_stacks AS
SELECT * FROM fleet_host_stacks
WHERE measure = '${measure:-cpu}' AND ${dimension_filter};
CREATE OR REPLACE TEMPORARY VIEW modules AS
SELECT * FROM fleet_modules
WHERE measure = '${measure:-cpu}' AND ${dimension_filter};

CREATE OR REPLACE TEMPORARY VIEW chosen AS
SELECT coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM host_stacks)) AS date;

CREATE OR REPLACE TEMPORARY VIEW per_host_files AS
SELECT host,
       count(*)                                  AS files,
       count_if(problems > 0)                    AS files_with_problems,
       sum(records)                              AS records
FROM files WHERE date = (SELECT date FROM chosen)
GROUP BY host;

CREATE OR REPLACE TEMPORARY VIEW per_host AS
SELECT host, unit, sum(value) AS value, sum(count) AS count, sum(profiles) AS profiles
FROM host_stacks WHERE date = (SELECT date FROM chosen)
GROUP BY host, unit;

CREATE OR REPLACE TEMPORARY VIEW top_module AS
SELECT host, max_by(module, self_value) AS top_module, max(self_value) AS top_module_self
FROM (SELECT host, module, sum(self_value) AS self_value
      FROM modules WHERE date = (SELECT date FROM chosen)
      GROUP BY host, module)
GROUP BY host;

SELECT (SELECT date FROM chosen)                                                        AS date,
       coalesce(f.host, '(no host= directory)')                                         AS host,
       f.files,
       f.files_with_problems,
       f.records,
       round(p.value / CASE p.unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3)   AS value,
       CASE p.unit WHEN 'nanoseconds' THEN 's' ELSE p.unit END                          AS unit,
       round(100 * p.value / (SELECT sum(value) FROM per_host), 2)                      AS pct_of_fleet,
       p.count                                                                          AS samples,
       regexp_extract(t.top_module, '[^/]*$', 0)                                        AS top_module,
       round(t.top_module_self / CASE p.unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3)
                                                                                        AS top_module_self
FROM per_host_files f
LEFT JOIN per_host p ON f.host <=> p.host
LEFT JOIN top_module t ON f.host <=> t.host
ORDER BY p.value DESC NULLS LAST, f.host;
