-- What grew and what shrank between two days, per call stack (its frames named as in
-- top-stacks.sql), normalised by each day's total (so a bigger fleet on one day does not make
-- everything "grow"): delta_pct is the change in the stack's share of the day's CPU time (or
-- -d measure=...), in percentage points. The same change per function, with the hosts where it
-- grew: jobs/diff-dates.sql.
-- Run: jobs/sql -d date=2026-11-21 -d base=2026-11-20 [-d output=...] [-d measure=cpu] [-d limit=20] jobs/diff-stacks.sql
-- (date defaults to the latest date in the output, base to the one before it).
CREATE OR REPLACE TEMPORARY VIEW stacks AS
SELECT * FROM fleet_stacks
WHERE measure = '${measure:-cpu}';

CREATE OR REPLACE TEMPORARY VIEW chosen AS
WITH d AS (
  SELECT coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM stacks)) AS date
)
SELECT d.date,
       coalesce(try_cast('${base:-previous}' AS DATE),
                (SELECT max(date) FROM stacks WHERE date < d.date)) AS base
FROM d;

CREATE OR REPLACE TEMPORARY VIEW cur AS
SELECT format, frames, sum(value) AS value, sum(count) AS count FROM stacks
WHERE date = (SELECT date FROM chosen) GROUP BY format, frames;
CREATE OR REPLACE TEMPORARY VIEW old AS
SELECT format, frames, sum(value) AS value, sum(count) AS count FROM stacks
WHERE date = (SELECT base FROM chosen) GROUP BY format, frames;

CREATE OR REPLACE TEMPORARY VIEW joined AS
SELECT coalesce(cur.format, old.format)                                        AS format,
       coalesce(cur.frames, old.frames)                                        AS frames,
       coalesce(cur.count, 0)                                                  AS count,
       coalesce(old.count, 0)                                                  AS base_count,
       100 * coalesce(cur.value, 0) / nullif((SELECT sum(value) FROM cur), 0)  AS pct,
       100 * coalesce(old.value, 0) / nullif((SELECT sum(value) FROM old), 0)  AS base_pct
FROM cur FULL OUTER JOIN old ON cur.format = old.format AND cur.frames = old.frames;

CREATE OR REPLACE TEMPORARY VIEW top AS
SELECT monotonically_increasing_id() AS id, *
FROM (SELECT * FROM joined
      ORDER BY abs(coalesce(pct, 0) - coalesce(base_pct, 0)) DESC
      LIMIT ${limit:-20});

-- A location's inline chain, innermost first, from locations/ (the names the job found).
CREATE OR REPLACE TEMPORARY VIEW names AS
SELECT module, offset, first(lines, true) AS lines
FROM fleet_locations
WHERE date IN ((SELECT date FROM chosen), (SELECT base FROM chosen)) AND lines IS NOT NULL
GROUP BY module, offset;

-- Each top stack's frames by name (the view named: id, stack).
SOURCE views/named-stacks.sql;

SELECT (SELECT date FROM chosen)                                   AS date,
       (SELECT base FROM chosen)                                   AS base,
       CASE WHEN coalesce(pct, 0) >= coalesce(base_pct, 0) THEN 'grew' ELSE 'shrank' END AS change,
       round(coalesce(pct, 0) - coalesce(base_pct, 0), 3)          AS delta_pct,
       round(pct, 3)                                               AS pct,
       round(base_pct, 3)                                          AS base_pct,
       t.count,
       t.base_count,
       n.stack
FROM top t JOIN named n ON t.id = n.id
ORDER BY abs(coalesce(pct, 0) - coalesce(base_pct, 0)) DESC;
