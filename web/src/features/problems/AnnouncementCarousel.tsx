/**
 * The global announcements above the problem table: one card at a time, the next one every 5 s (paused
 * while pointed at or focused), a click or the button moves on. Nothing shows when there are none or
 * they could not be loaded.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { announcementContract } from '@otog/schemas/api/announcement';
import { IconButton } from '../../components/ui/Button.tsx';
import { ChevronDownIcon } from '../../components/ui/icons.tsx';
import { apiQuery } from '../../lib/query.ts';
import { RichText } from '../../components/problem/RichText.tsx';

export const ANNOUNCEMENT_INTERVAL_MS = 5_000;

export function AnnouncementCarousel() {
  const announcements = useQuery({ ...apiQuery(announcementContract.getAnnouncements, { query: { show: true } }), staleTime: 60_000 });
  const shown = (announcements.data ?? []).filter((announcement) => announcement.show && announcement.contestId === null);
  const [index, setIndex] = useState(0);
  const [paused, setPaused] = useState(false);
  const count = shown.length;
  const current = count ? index % count : 0;

  useEffect(() => {
    if (count < 2 || paused) return;
    const timer = window.setInterval(() => setIndex((at) => at + 1), ANNOUNCEMENT_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, [count, paused]);

  if (!count) return null;
  const announcement = shown[current]!;
  const next = () => setIndex(current + 1);

  return (
    <section
      className="announcements"
      aria-roledescription="carousel"
      aria-label="ประกาศ"
      onPointerEnter={() => setPaused(true)}
      onPointerLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setPaused(false);
      }}
    >
      <div
        key={announcement.id}
        className="announcement-card"
        aria-roledescription="slide"
        aria-label={count > 1 ? `ประกาศที่ ${current + 1} จาก ${count}` : 'ประกาศ'}
        data-testid="announcement"
        onClick={(event) => {
          // Links inside the announcement open; a click anywhere else moves on.
          if (count > 1 && !(event.target as HTMLElement).closest('a')) next();
        }}
      >
        <RichText value={announcement.value} />
      </div>
      {count > 1 ? (
        <div className="announcement-controls">
          <span className="muted announcement-position" aria-hidden>
            {current + 1} / {count}
          </span>
          <IconButton label="ประกาศถัดไป" size="sm" onClick={next}>
            <ChevronDownIcon />
          </IconButton>
        </div>
      ) : null}
    </section>
  );
}
