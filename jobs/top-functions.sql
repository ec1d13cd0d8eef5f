-- One day's hottest functions, fleet-wide, as `pprof -top` lists them: flat (self: the innermost
-- function of the sampled instruction, inlined functions included) and cumulative (total: the
-- function anywhere on the stack, counted once per stack). Locations whose binary was not found
-- show as [module], as pprof shows them.
-- One measure at a time, never two units in one ranking: CPU time by default (the CPU samples of
-- every format, each sample worth its profile's period; `self`/`total` in seconds), or
-- -d measure=calls (gprof call arcs), -d measure=cycles (a DCPI event), ... (the measures are in
-- the `measure` column of functions/). -d format=gprof keeps one format's rows.
-- Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] [-d measure=cpu] [-d format=all] [-d limit=20] jobs/top-functions.sql
CREATE OR REPLACE TEMPORARY VIEW functions AS
SELECT * FROM fleet_functions
WHERE measure = '${measure:-cpu}' AND ('${format:-all}' = 'all' OR format = '${format:-all}');

-- The default day is the latest with this measure: a later day of only gmon.out call counts
-- leaves CPU time's latest day the one to show.
CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM functions
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM functions));

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
