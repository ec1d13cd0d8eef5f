-- host_functions: per host and function, what functions/ holds per date (docs/symbolization.md,
-- "Functions"), from the views kept_stacks (date, host, side, format, kind, measure, unit, frames,
-- count, value: the stacks a script keeps, side telling the two sides of a diff apart) and
-- kept_locations (locations/ rows of those dates).
-- Self is the weight of the stacks whose leaf's innermost (inlined) function it is, total of the
-- stacks it is on anywhere, inlined frames included, once per stack; a location without a name
-- counts for the function null of its module. top-functions.sql and diff-dates.sql read it with
-- SOURCE (spark-sql's command); SqlJobsTest checks both against functions/.
CREATE OR REPLACE TEMPORARY VIEW host_functions AS
WITH numbered AS (
  SELECT monotonically_increasing_id() AS stack_id, * FROM kept_stacks
),
stack_frames AS (
  SELECT stack_id, date, host, side, format, kind, measure, unit, count, value,
         posexplode(frames) AS (frame_pos, frame)
  FROM numbered
),
named AS (
  SELECT f.stack_id, f.date, f.host, f.side, f.format, f.kind, f.measure, f.unit, f.count, f.value,
         f.frame_pos, f.frame.module AS module, l.lines
  FROM stack_frames f
  LEFT JOIN kept_locations l
    ON l.date = f.date AND l.format = f.format AND l.kind = f.kind AND l.measure = f.measure
       AND l.unit = f.unit AND l.module <=> f.frame.module AND l.offset = f.frame.offset
),
stack_functions AS (
  SELECT stack_id, date, host, side, format, kind, measure, unit, count, value, module, frame_pos,
         posexplode(coalesce(lines.function, array(CAST(NULL AS STRING)))) AS (line_pos, function)
  FROM named
),
per_stack AS (
  SELECT date, host, side, format, kind, measure, unit, count, value, module, function,
         max(frame_pos = 0 AND line_pos = 0) AS is_self
  FROM stack_functions
  GROUP BY stack_id, date, host, side, format, kind, measure, unit, count, value, module, function
)
SELECT date, host, side, format, kind, measure, unit, module, function,
       CAST(sum(CASE WHEN is_self THEN count ELSE 0 END) AS DECIMAL(38,0))          AS self_count,
       CAST(sum(count) AS DECIMAL(38,0))                                             AS total_count,
       CAST(sum(CASE WHEN is_self THEN value WHEN value IS NOT NULL THEN 0 END)
            AS DECIMAL(38,0))                                                        AS self_value,
       CAST(sum(value) AS DECIMAL(38,0))                                             AS total_value
FROM per_stack
GROUP BY date, host, side, format, kind, measure, unit, module, function;
