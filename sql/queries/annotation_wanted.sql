-- The sentences an annotation renders tokens for (sphragis.evaluation.annotations): those of
-- the registered `annotation_selection` and the UD sentences they must match (counterpart_uid).
select sentence_uid from annotation_selection
where sentence_uid is not null
union
select counterpart_uid from annotation_selection
where counterpart_uid is not null
