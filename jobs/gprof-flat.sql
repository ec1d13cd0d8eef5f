-- gprof's flat profile (`gprof -b -p PROGRAM gmon.out`) for one program, from the fleet job's
-- output: per function (the ELF symbol: the outermost entry of a location's inline chain), the
-- self seconds of its histogram samples and the calls into it (call arcs whose callee it is), over
-- every gmon.out of the day with that program (a program=NAME directory or --gmon-binary).
-- One difference: gprof splits a histogram bin that straddles two functions between them; here
-- the bin counts for the function holding its first byte (bins are 2-4 bytes).
-- Run: jobs/sql -d program=NAME [-d output=...] [-d date=YYYY-MM-DD] [-d limit=50] jobs/gprof-flat.sql
CREATE OR REPLACE TEMPORARY VIEW locations AS
SELECT * FROM fleet_locations;

CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM locations
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE),
                      (SELECT max(date) FROM locations WHERE format = 'gprof'
                         AND regexp_extract(module, '[^/]*$', 0)
                             = regexp_extract('${program}', '[^/]*$', 0)))
  AND format = 'gprof'
  AND regexp_extract(module, '[^/]*$', 0) = regexp_extract('${program}', '[^/]*$', 0);

-- Seconds per histogram count: the period of the program's histogram rows (1/rate s, in us).
CREATE OR REPLACE TEMPORARY VIEW tick AS
SELECT CAST(max(period) AS DECIMAL(20, 0)) / 1000000 AS seconds
FROM fleet_stacks
WHERE format = 'gprof' AND kind = 'histogram' AND period_unit = 'microseconds'
  AND date = (SELECT max(date) FROM day)
  AND regexp_extract(frames[0].module, '[^/]*$', 0) = regexp_extract('${program}', '[^/]*$', 0);

-- The function of an address: the ELF symbol, the outermost entry of its inline chain.
CREATE OR REPLACE TEMPORARY VIEW names AS
SELECT DISTINCT module, offset,
       coalesce(element_at(lines, -1).function, concat('0x', lower(hex(offset)))) AS function
FROM day;

-- Calls into a function from other functions: as gprof's flat profile counts them, a function
-- calling itself is not a call (gprof shows those as "+N" in the call graph only).
CREATE OR REPLACE TEMPORARY VIEW calls AS
SELECT callee.function AS function, sum(s.count) AS calls
FROM fleet_stacks s
JOIN names callee ON callee.module = s.frames[0].module AND callee.offset = s.frames[0].offset
JOIN names caller ON caller.module = s.frames[1].module AND caller.offset = s.frames[1].offset
WHERE s.format = 'gprof' AND s.kind = 'arc' AND s.date = (SELECT max(date) FROM day)
  AND callee.function <> caller.function
GROUP BY callee.function;

CREATE OR REPLACE TEMPORARY VIEW flat AS
SELECT coalesce(t.function, c.function) AS function,
       coalesce(t.samples, 0)           AS samples,
       nullif(c.calls, 0)               AS calls
FROM (SELECT n.function, sum(d.self_count) AS samples
      FROM day d JOIN names n ON n.module = d.module AND n.offset = d.offset
      WHERE d.kind = 'histogram'
      GROUP BY n.function) t
FULL OUTER JOIN calls c ON t.function = c.function;

SELECT function,
       round(100 * samples / (SELECT sum(samples) FROM flat), 2)   AS time_pct,
       round(samples * (SELECT seconds FROM tick), 2)               AS self_seconds,
       calls,
       samples
FROM flat
ORDER BY samples DESC, calls DESC, function
LIMIT ${limit:-50};
