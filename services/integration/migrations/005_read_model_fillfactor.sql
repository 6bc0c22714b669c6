-- Room on each read-model page for the row's next version (issue 11): a create is
-- inserted pending and, a few milliseconds later, made active when its outbox row is
-- marked sent. With full pages that update had to move the row to another page and add
-- an entry to both indexes; with room on the page it is a HOT update (no index entry;
-- the old version pruned in place). Applies to pages written from now on.
ALTER TABLE submitted_records SET (fillfactor = 50);
