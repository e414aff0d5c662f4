-- One name, one person: `ADMIN` next to `admin` would pass for the admin. Sign-in still matches exactly.
CREATE UNIQUE INDEX accounts_username_any_case ON accounts (lower(username));
