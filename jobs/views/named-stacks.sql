-- named: each stack of the view top (id, frames) as the list of its frames' names, leaf first,
-- a frame's inline chain innermost first: the functions the view names (module, offset,
-- lines: locations/ rows) gives, '?' for a function without a name, MODULE+0xOFFSET for a frame
-- without lines. top-stacks.sql and diff-stacks.sql read it with SOURCE.
CREATE OR REPLACE TEMPORARY VIEW named AS
SELECT e.id,
       flatten(transform(array_sort(collect_list(struct(e.pos,
         coalesce(transform(n.lines, l -> coalesce(l.function, '?')),
                  array(concat(coalesce(regexp_extract(e.frame.module, '[^/]*$', 0), '?'),
                               '+0x', lower(hex(e.frame.offset)))))
         AS names))), s -> s.names)) AS stack
FROM (SELECT id, posexplode(frames) AS (pos, frame) FROM top) e
LEFT JOIN names n ON n.module <=> e.frame.module AND n.offset = e.frame.offset
GROUP BY e.id;
