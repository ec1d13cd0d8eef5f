-- What grew and what shrank between two days, per stack, normalised by each day's total samples
-- (so a bigger fleet on one day does not make everything "grow"): delta_pct is the change in the
-- stack's share of all samples, in percentage points.
-- Run: jobs/sql -d date=2026-11-21 -d base=2026-11-20 [-d output=...] [-d limit=20] jobs/diff-dates.sql
-- (date defaults to the latest date in the output, base to the one before it).
CREATE OR REPLACE TEMPORARY VIEW stacks AS
SELECT * FROM parquet.`${output:-target/fleet-output}/stacks` WHERE kind = 'sample';

CREATE OR REPLACE TEMPORARY VIEW chosen AS
WITH d AS (
  SELECT coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM stacks)) AS date
)
SELECT d.date,
       coalesce(try_cast('${base:-previous}' AS DATE),
                (SELECT max(date) FROM stacks WHERE date < d.date)) AS base
FROM d;

WITH cur AS (
  SELECT format, frames, sum(count) AS count FROM stacks
  WHERE date = (SELECT date FROM chosen) GROUP BY format, frames
),
old AS (
  SELECT format, frames, sum(count) AS count FROM stacks
  WHERE date = (SELECT base FROM chosen) GROUP BY format, frames
),
joined AS (
  SELECT coalesce(cur.format, old.format)                          AS format,
         coalesce(cur.frames, old.frames)                          AS frames,
         coalesce(cur.count, 0)                                    AS count,
         coalesce(old.count, 0)                                    AS base_count,
         100 * coalesce(cur.count, 0) / nullif(sum(cur.count) OVER (), 0) AS pct,
         100 * coalesce(old.count, 0) / nullif(sum(old.count) OVER (), 0) AS base_pct
  FROM cur FULL OUTER JOIN old ON cur.format = old.format AND cur.frames = old.frames
)
SELECT (SELECT date FROM chosen)                                   AS date,
       (SELECT base FROM chosen)                                   AS base,
       CASE WHEN coalesce(pct, 0) >= coalesce(base_pct, 0) THEN 'grew' ELSE 'shrank' END AS change,
       round(coalesce(pct, 0) - coalesce(base_pct, 0), 3)          AS delta_pct,
       round(pct, 3)                                               AS pct,
       round(base_pct, 3)                                          AS base_pct,
       count,
       base_count,
       transform(frames, f -> concat(coalesce(regexp_extract(f.module, '[^/]*$', 0), '?'),
                                     '+0x', lower(hex(f.offset)))) AS stack
FROM joined
ORDER BY abs(coalesce(pct, 0) - coalesce(base_pct, 0)) DESC
LIMIT ${limit:-20};
