-- What grew and what shrank between two days, per function: its self share (it is the innermost
-- function of the sampled instruction: pprof -top's flat) and total share (it is anywhere on the
-- stack: cum) of the day's CPU time (or -d measure=...) on the date and on the base date, and the
-- change in percentage points. Shares, not seconds, so that a bigger fleet on one day does not make
-- everything "grow". The biggest change of self share comes first (then of total share). `hosts`
-- names the hosts (at most three) that moved the share most in the row's direction, each with its
-- part of the change: the parts of all hosts add up to the change. -d host=NAME keeps one host's
-- stacks, -d program=NAME the stacks with a frame in a module whose file name is NAME (the
-- program's executable; see docs/sql-jobs.md); shares are then of what is kept. The same per call
-- stack: diff-stacks.sql.
-- -d DIMENSION=VALUE (e.g. -d service=api) keeps the hosts' stacks of that directory level's value.
-- -d by=DIMENSION -d base=VALUE compares two values of a dimension on one day instead of two days:
-- what grew in the stacks whose DIMENSION is not VALUE (or is -d value=OTHER) against those whose
-- DIMENSION is VALUE, e.g. -d service=api -d by=version -d base=4.12.0.
-- Run: jobs/sql -d date=2026-11-21 -d base=2026-11-20 [-d output=...] [-d measure=cpu] [-d host=NAME] [-d program=NAME] [-d DIMENSION=VALUE ...] [-d limit=20] jobs/diff-dates.sql
--      jobs/sql -d by=DIMENSION -d base=VALUE [-d value=OTHER] [-d date=YYYY-MM-DD] [...] jobs/diff-dates.sql
-- (date defaults to the latest date with the measure and the stacks kept, base to the one before).

-- The hosts' stacks the filters keep: one measure; -d host=NAME, that host's; -d program=NAME,
-- those with a frame in a module whose file name is NAME.
CREATE OR REPLACE TEMPORARY VIEW selected AS
SELECT date, host, dimensions, format, kind, measure, unit, frames, count, value
FROM fleet_host_stacks
WHERE measure = '${measure:-cpu}'
  AND ('${host:-}' = '' OR host = '${host:-}') AND ${dimension_filter}
  AND ('${program:-}' = ''
       OR exists(frames, f -> regexp_extract(f.module, '[^/]*$', 0)
                              = regexp_extract('${program:-}', '[^/]*$', 0)));

CREATE OR REPLACE TEMPORARY VIEW chosen AS
WITH d AS (
  SELECT coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM selected)) AS date
)
SELECT d.date,
       CASE WHEN '${by:-}' = '' THEN coalesce(try_cast('${base:-previous}' AS DATE),
                                              (SELECT max(date) FROM selected WHERE date < d.date))
            ELSE d.date END                                    AS base
FROM d;

-- Each stack's side: the date's or the base's; with -d by=, the base value's or the other's.
CREATE OR REPLACE TEMPORARY VIEW kept_stacks AS
SELECT * FROM (
  SELECT s.date, s.host, s.format, s.kind, s.measure, s.unit, s.frames, s.count, s.value,
         CASE WHEN '${by:-}' = '' THEN CASE WHEN s.date = c.date THEN 'new'
                                            WHEN s.date = c.base THEN 'base' END
              WHEN s.date <> c.date THEN NULL
              WHEN exists(s.dimensions, d -> d.key = '${by:-}' AND d.value = '${base:-}') THEN 'base'
              WHEN '${value:-}' = ''
                   OR exists(s.dimensions, d -> d.key = '${by:-}' AND d.value = '${value:-}')
                THEN 'new'
         END AS side
  FROM selected s CROSS JOIN chosen c)
WHERE side IS NOT NULL;

CREATE OR REPLACE TEMPORARY VIEW kept_locations AS
SELECT date, format, kind, measure, unit, module, offset, lines
FROM fleet_locations
WHERE measure = '${measure:-cpu}'
  AND date IN ((SELECT date FROM chosen), (SELECT base FROM chosen));

-- Per host and function, self and total per date: the view host_functions, as functions/ holds
-- them, over the stacks kept above.
SOURCE views/host-functions.sql;

-- Per host and function, self and total on each day (null: none that day).
CREATE OR REPLACE TEMPORARY VIEW per_host AS
SELECT f.host,
       f.module,
       f.function,
       sum(CASE WHEN f.side = 'new' THEN f.self_value END)   AS self_value,
       sum(CASE WHEN f.side = 'base' THEN f.self_value END)  AS base_self_value,
       sum(CASE WHEN f.side = 'new' THEN f.total_value END)  AS total_value,
       sum(CASE WHEN f.side = 'base' THEN f.total_value END) AS base_total_value
FROM host_functions f
GROUP BY f.host, f.module, f.function;

-- With -d by=, what a side that no stack has is told: the day and the dimension's values kept.
CREATE OR REPLACE TEMPORARY VIEW by_values AS
SELECT concat('diff-dates.sql: no stacks on ', (SELECT date FROM chosen), ' have ${by:-}') AS missing,
       concat(' (the values of ${by:-} kept that day: ',
              coalesce(nullif(concat_ws(', ', array_sort(collect_set(d.value))), ''), 'none'),
              ')') AS kept
FROM selected s LATERAL VIEW explode(s.dimensions) t AS d
WHERE d.key = '${by:-}' AND s.date = (SELECT date FROM chosen);

-- Each day's total: the self of every function kept (as top-functions.sql's shares). With -d by=,
-- a side that no stack has is an error naming the values there are: its shares would all be zero,
-- and every function of the other side would seem to grow.
CREATE OR REPLACE TEMPORARY VIEW totals AS
SELECT CASE WHEN '${by:-}' <> '' AND sum(self_value) IS NULL
            THEN raise_error(concat((SELECT missing FROM by_values),
                                    IF('${value:-}' = '', ' other than ${base:-}', '=${value:-}'),
                                    (SELECT kept FROM by_values)))
            ELSE nullif(sum(self_value), 0) END AS total,
       CASE WHEN '${by:-}' <> '' AND sum(base_self_value) IS NULL
            THEN raise_error(concat((SELECT missing FROM by_values), '=${base:-}',
                                    (SELECT kept FROM by_values)))
            ELSE nullif(sum(base_self_value), 0) END AS base_total
FROM per_host;

-- A function's self and total on each day as a share of that day's total, in percent.
CREATE OR REPLACE TEMPORARY VIEW function_shares AS
SELECT p.module,
       p.function,
       100 * coalesce(sum(p.self_value), 0) / t.total             AS self_pct,
       100 * coalesce(sum(p.base_self_value), 0) / t.base_total   AS base_self_pct,
       100 * coalesce(sum(p.total_value), 0) / t.total            AS total_pct,
       100 * coalesce(sum(p.base_total_value), 0) / t.base_total  AS base_total_pct
FROM per_host p CROSS JOIN totals t
GROUP BY p.module, p.function, t.total, t.base_total;

-- A host's part of a function's change: the change of its self (total) as a share of the day's
-- total of every host kept. The parts of all hosts add up to the function's change.
CREATE OR REPLACE TEMPORARY VIEW host_parts AS
SELECT p.host,
       p.module,
       p.function,
       coalesce(100 * coalesce(p.self_value, 0) / t.total, 0)
       - coalesce(100 * coalesce(p.base_self_value, 0) / t.base_total, 0)  AS self_part,
       coalesce(100 * coalesce(p.total_value, 0) / t.total, 0)
       - coalesce(100 * coalesce(p.base_total_value, 0) / t.base_total, 0) AS total_part
FROM per_host p CROSS JOIN totals t;

-- A row's change is of its self share, or of its total share where the self share did not move
-- (a caller of what changed).
CREATE OR REPLACE TEMPORARY VIEW top AS
SELECT *,
       CASE WHEN self_delta <> 0 THEN self_delta ELSE total_delta END AS delta
FROM (SELECT *,
             coalesce(self_pct, 0) - coalesce(base_self_pct, 0)   AS self_delta,
             coalesce(total_pct, 0) - coalesce(base_total_pct, 0) AS total_delta
      FROM function_shares)
ORDER BY abs(self_delta) DESC, abs(total_delta) DESC, function, module
LIMIT ${limit:-20};

-- The hosts with the biggest parts of a listed row's change, in its direction, biggest first.
CREATE OR REPLACE TEMPORARY VIEW host_lists AS
SELECT module,
       function,
       array_join(
         transform(
           slice(array_sort(collect_list(
                   named_struct('sort_key', -direction * part, 'host', host, 'part', part))), 1, 3),
           p -> format_string('%s %+.2fpp', coalesce(p.host, '(no host= directory)'),
                              CAST(p.part AS DOUBLE))),
         ', ')                                                                  AS hosts
FROM (SELECT t.module,
             t.function,
             h.host,
             sign(t.delta)                                                      AS direction,
             CASE WHEN t.self_delta <> 0 THEN h.self_part ELSE h.total_part END AS part
      FROM top t
      JOIN host_parts h ON h.module <=> t.module AND h.function <=> t.function)
WHERE direction * round(part, 2) > 0
GROUP BY module, function;

SELECT (SELECT date FROM chosen)                                             AS date,
       CASE WHEN '${by:-}' = '' THEN CAST((SELECT base FROM chosen) AS STRING)
            ELSE '${by:-}=${base:-}' END                                     AS base,
       CASE WHEN t.delta >= 0 THEN 'grew' ELSE 'shrank' END                  AS change,
       coalesce(t.function, concat('[', coalesce(regexp_extract(t.module, '[^/]*$', 0), '?'), ']'))
                                                                             AS function,
       regexp_extract(t.module, '[^/]*$', 0)                                 AS module,
       round(t.self_delta, 3)                                                AS self_delta,
       round(t.self_pct, 3)                                                  AS self_pct,
       round(t.base_self_pct, 3)                                             AS base_self_pct,
       round(t.total_delta, 3)                                               AS total_delta,
       round(t.total_pct, 3)                                                 AS total_pct,
       round(t.base_total_pct, 3)                                            AS base_total_pct,
       l.hosts
FROM top t
LEFT JOIN host_lists l ON l.module <=> t.module AND l.function <=> t.function
ORDER BY abs(t.self_delta) DESC, abs(t.total_delta) DESC, t.function, t.module;
