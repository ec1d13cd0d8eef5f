-- One day's hottest functions, fleet-wide, as `pprof -top` lists them: flat (self: the innermost
-- function of the sampled instruction, inlined functions included) and cumulative (total: the
-- function anywhere on the stack, counted once per stack). Locations whose binary was not found
-- show as [module], as pprof shows them. Only gperftools CPU samples by default (-d format=gprof
-- -d kind=histogram for gprof's time, -d kind=arc for calls).
-- Run: jobs/sql [-d output=...] [-d date=YYYY-MM-DD] [-d limit=20] jobs/top-functions.sql
CREATE OR REPLACE TEMPORARY VIEW functions AS
SELECT * FROM parquet.`${output:-target/fleet-output}/functions`
WHERE format = '${format:-gperftools}' AND kind = '${kind:-sample}';

-- The default day is the latest with this format and kind: a later day of only gmon.out files
-- leaves the CPU samples' latest day the one to show.
CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM functions
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM functions));

SELECT date,
       coalesce(function, concat('[', coalesce(regexp_extract(module, '[^/]*$', 0), '?'), ']'))
                                                               AS function,
       regexp_extract(module, '[^/]*$', 0)                     AS module,
       self_count,
       round(100 * self_count / (SELECT sum(self_count) FROM day), 2)  AS self_pct,
       total_count,
       round(100 * total_count / (SELECT sum(self_count) FROM day), 2) AS total_pct
FROM day
ORDER BY self_count DESC, total_count DESC, function
LIMIT ${limit:-20};
