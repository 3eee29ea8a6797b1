-- factdiff store on PostgreSQL, schema version 16: decision ids are per agent.
-- An attestation belongs to the agent whose entries it holds ('' when they are several
--   agents', attested by an operator). Its key is (decision_id, agent_id), so one agent's
--   decision ids neither collide with another's nor tell it that they exist.
-- Attestations made before are given the agent of their entries (live, or erased with a
--   tombstone) when those are all one agent's, else '' (the append-only triggers are held
--   off for that one update).

ALTER TABLE attestation_entries DROP CONSTRAINT attestation_entries_decision_id_fkey;
ALTER TABLE attestation_entries DROP CONSTRAINT attestation_entries_pkey;
ALTER TABLE attestations DROP CONSTRAINT attestations_pkey;

ALTER TABLE attestations ADD COLUMN agent_id text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE attestation_entries ADD COLUMN agent_id text COLLATE "C" NOT NULL DEFAULT '';

ALTER TABLE attestations DISABLE TRIGGER attestations_no_update;
ALTER TABLE attestation_entries DISABLE TRIGGER attestation_entries_no_update;

UPDATE attestations AS a SET agent_id = coalesce((
    SELECT CASE WHEN count(DISTINCT o.agent_id) = 1 THEN min(o.agent_id) END
    FROM attestation_entries AS ae
    JOIN (
        SELECT id AS entry_id, agent_id FROM entries
        UNION ALL
        SELECT entry_id, agent_id FROM tombstones
    ) AS o ON o.entry_id = ae.entry_id
    WHERE ae.decision_id = a.decision_id
), '');

UPDATE attestation_entries AS ae SET agent_id = a.agent_id
FROM attestations AS a WHERE a.decision_id = ae.decision_id;

ALTER TABLE attestations ENABLE TRIGGER attestations_no_update;
ALTER TABLE attestation_entries ENABLE TRIGGER attestation_entries_no_update;

ALTER TABLE attestations ALTER COLUMN agent_id DROP DEFAULT;
ALTER TABLE attestation_entries ALTER COLUMN agent_id DROP DEFAULT;

ALTER TABLE attestations ADD PRIMARY KEY (decision_id, agent_id);
ALTER TABLE attestation_entries ADD PRIMARY KEY (decision_id, agent_id, position);
ALTER TABLE attestation_entries ADD FOREIGN KEY (decision_id, agent_id)
    REFERENCES attestations (decision_id, agent_id);
