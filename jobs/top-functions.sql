-- One day's hottest functions, fleet-wide, as `pprof -top` lists them: flat (self: the innermost
-- function of the sampled instruction, inlined functions included) and cumulative (total: the
-- function anywhere on the stack, counted once per stack). Locations whose binary was not found
-- show as [module], as pprof shows them.
-- One measure at a time, never two units in one ranking: CPU time by default (the CPU samples of
-- every format, each sample worth its profile's period; `self`/`total` in seconds), or
-- -d measure=calls (gprof call arcs), -d measure=cycles (a DCPI event), ... (the measures are in
-- the `measure` column of functions/). -d format=gprof keeps one format's rows.
-- -d host=NAME keeps one host's stacks, -d program=NAME the stacks with a frame in a module whose
-- file name is NAME (the program's executable; see docs/sql-jobs.md): the functions are then
-- computed from host_stacks/ and locations/ as the job computes functions/, and the shares are of
-- what is kept (pprof -top of that host's or program's profiles). -d DIMENSION=VALUE (e.g.
-- -d service=api -d version=4.12.1) keeps the hosts' stacks of that directory level's value, the
-- same way.
-- Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] [-d measure=cpu] [-d format=all] [-d host=NAME] [-d program=NAME] [-d DIMENSION=VALUE ...] [-d limit=20] jobs/top-functions.sql
CREATE OR REPLACE TEMPORARY VIEW functions AS
SELECT * FROM fleet_functions
WHERE measure = '${measure:-cpu}' AND ('${format:-all}' = 'all' OR format = '${format:-all}');

-- With -d host= or -d program=: the hosts' stacks the filters keep (one measure, maybe one
-- format; -d host=NAME, that host's; -d program=NAME, those with a frame in a module whose file
-- name is NAME).
CREATE OR REPLACE TEMPORARY VIEW selected AS
SELECT date, host, 'new' AS side, format, kind, measure, unit, frames, count, value
FROM fleet_host_stacks
WHERE measure = '${measure:-cpu}' AND ('${format:-all}' = 'all' OR format = '${format:-all}')
  AND ('${host:-}' = '' OR host = '${host:-}') AND ${dimension_filter}
  AND ('${program:-}' = ''
       OR exists(frames, f -> regexp_extract(f.module, '[^/]*$', 0)
                              = regexp_extract('${program:-}', '[^/]*$', 0)));

CREATE OR REPLACE TEMPORARY VIEW chosen AS
SELECT coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM selected)) AS date;

CREATE OR REPLACE TEMPORARY VIEW kept_stacks AS
SELECT * FROM selected WHERE date = (SELECT date FROM chosen);

CREATE OR REPLACE TEMPORARY VIEW kept_locations AS
SELECT date, format, kind, measure, unit, module, offset, lines
FROM fleet_locations
WHERE measure = '${measure:-cpu}' AND date = (SELECT date FROM chosen);

-- Per host and function, self and total per date: the view host_functions, as functions/ holds
-- them, over the stacks kept above.
SOURCE views/host-functions.sql;

-- The default day is the latest with this measure: a later day of only gmon.out call counts
-- leaves CPU time's latest day the one to show. Without -d host= and -d program=, the rows of
-- functions/; with them, those computed above (Spark reads only one of the two).
CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT date, format, kind, measure, unit, module, function,
       self_count, total_count, self_value, total_value
FROM functions
WHERE '${host:-}' = '' AND '${program:-}' = '' AND '${dimension_filtered}' = ''
  AND date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM functions))
UNION ALL
SELECT date, format, kind, measure, unit, module, function,
       self_count, total_count, self_value, total_value
FROM (SELECT date, format, kind, measure, unit, module, function,
             sum(self_count) AS self_count, sum(total_count) AS total_count,
             sum(self_value) AS self_value, sum(total_value) AS total_value
      FROM host_functions
      GROUP BY date, format, kind, measure, unit, module, function)
WHERE NOT ('${host:-}' = '' AND '${program:-}' = '' AND '${dimension_filtered}' = '');

CREATE OR REPLACE TEMPORARY VIEW per_function AS
SELECT date,
       coalesce(function, concat('[', coalesce(regexp_extract(module, '[^/]*$', 0), '?'), ']'))
                                                               AS function,
       regexp_extract(module, '[^/]*$', 0)                     AS module,
       unit,
       sum(self_value)                                         AS self_value,
       sum(total_value)                                        AS total_value,
       sum(self_count)                                         AS self_count,
       sum(total_count)                                        AS total_count
FROM day
GROUP BY date, function, module, unit;

-- Seconds for time; other units as they are.
SELECT date,
       function,
       module,
       round(self_value / CASE unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3)  AS self,
       round(100 * self_value / (SELECT sum(self_value) FROM per_function), 2)           AS self_pct,
       round(total_value / CASE unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3) AS total,
       round(100 * total_value / (SELECT sum(self_value) FROM per_function), 2)          AS total_pct,
       CASE unit WHEN 'nanoseconds' THEN 's' ELSE unit END                               AS unit,
       self_count,
       total_count
FROM per_function
ORDER BY self_value DESC, total_value DESC, function
LIMIT ${limit:-20};
