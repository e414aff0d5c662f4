-- Command-side rows of identity (DESIGN.md section 8). Accounts hold credentials, which must never enter
-- the permanent event log; each change is also appended as a User* event in the same transaction.
CREATE TABLE accounts (
  id             serial      PRIMARY KEY,
  username       text        NOT NULL,
  show_name      text        NOT NULL,
  -- PHC string: $argon2id$v=19$m=...,t=...,p=...$salt$hash
  password_hash  text        NOT NULL,
  role           text        NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
  rating         integer,
  email          text,
  -- sha256 of the avatar JPEGs in the object store (320 px and 32 px).
  avatar_large   text,
  avatar_small   text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- OTOG compares names exactly (case-sensitive unique columns).
CREATE UNIQUE INDEX accounts_username ON accounts (username);
CREATE UNIQUE INDEX accounts_show_name ON accounts (show_name);

-- Rotating refresh tokens: each use marks the row used and issues a successor in the same family; presenting
-- a used token again revokes the whole family (reuse detection). Only the sha256 of the token is stored.
CREATE TABLE refresh_tokens (
  id           uuid        PRIMARY KEY,
  token_hash   text        NOT NULL UNIQUE,
  family_id    uuid        NOT NULL,
  user_id      integer     NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- jti of the access token issued with it.
  jwt_id       uuid        NOT NULL,
  used_at      timestamptz,
  revoked_at   timestamptz,
  revoked_reason text,
  expires_at   timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);

-- Ids of event-sourced entities are handed out before their first event is appended.
CREATE SEQUENCE problem_ids AS integer;
CREATE SEQUENCE submission_ids AS integer;
CREATE SEQUENCE announcement_ids AS integer;
