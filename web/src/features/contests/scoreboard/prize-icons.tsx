/** The prizes' marks as inline SVG: emoji fonts are missing on many machines (a blank box instead of 🩸). */
import type { SVGProps } from 'react';

const base = (props: SVGProps<SVGSVGElement>) => ({ width: 14, height: 14, viewBox: '0 0 24 24', 'aria-hidden': true, ...props });

/** 🩸 First Blood */
export const BloodDropIcon = (props: SVGProps<SVGSVGElement>) => (
  <svg {...base(props)}>
    <path d="M12 2.5C9 7 5.5 10.6 5.5 14.5a6.5 6.5 0 0 0 13 0C18.5 10.6 15 7 12 2.5Z" fill="var(--red)" />
  </svg>
);

/** 🏅 One Man Solve */
export const MedalIcon = (props: SVGProps<SVGSVGElement>) => (
  <svg {...base(props)}>
    <path d="M7 2h4l2 6H9Zm6 0h4l-2 6h-4Z" fill="var(--blue)" />
    <circle cx="12" cy="15" r="6" fill="var(--yellow)" />
    <circle cx="12" cy="15" r="3" fill="none" stroke="var(--bg)" strokeWidth="1.5" />
  </svg>
);
