import type { Device } from '@tagtrack/core';

/**
 * Where an event came from, as the event detail fields carry it (source: "Click detail fields
 * and open detail fields"): `counry` keeps the source's spelling; `latitude` and `longitude`
 * are decimal degrees as strings (spec §9).
 */
export interface GeoLocation {
  readonly counry: string;
  readonly region: string;
  readonly city: string;
  readonly latitude: string;
  readonly longitude: string;
}

/**
 * The built-in location table of the dataset generator. It mixes hemispheres (negative
 * coordinates), non-ASCII place names, and one unresolved address (empty region and city,
 * as a geo-IP lookup without a match gives).
 */
export const LOCATIONS: readonly GeoLocation[] = [
  {
    counry: 'United States',
    region: 'New York',
    city: 'New York',
    latitude: '40.7128',
    longitude: '-74.0060',
  },
  {
    counry: 'United States',
    region: 'California',
    city: 'San Francisco',
    latitude: '37.7749',
    longitude: '-122.4194',
  },
  {
    counry: 'United States',
    region: 'Texas',
    city: 'Austin',
    latitude: '30.2672',
    longitude: '-97.7431',
  },
  {
    counry: 'Canada',
    region: 'Québec',
    city: 'Montréal',
    latitude: '45.5019',
    longitude: '-73.5674',
  },
  {
    counry: 'United Kingdom',
    region: 'England',
    city: 'London',
    latitude: '51.5074',
    longitude: '-0.1278',
  },
  {
    counry: 'Ireland',
    region: 'Leinster',
    city: 'Dublin',
    latitude: '53.3498',
    longitude: '-6.2603',
  },
  {
    counry: 'France',
    region: 'Île-de-France',
    city: 'Paris',
    latitude: '48.8566',
    longitude: '2.3522',
  },
  {
    counry: 'Germany',
    region: 'Bayern',
    city: 'München',
    latitude: '48.1351',
    longitude: '11.5820',
  },
  {
    counry: 'Switzerland',
    region: 'Zürich',
    city: 'Zürich',
    latitude: '47.3769',
    longitude: '8.5417',
  },
  {
    counry: 'Poland',
    region: 'Małopolskie',
    city: 'Kraków',
    latitude: '50.0647',
    longitude: '19.9450',
  },
  {
    counry: 'Brazil',
    region: 'São Paulo',
    city: 'São Paulo',
    latitude: '-23.5505',
    longitude: '-46.6333',
  },
  {
    counry: 'Argentina',
    region: 'Buenos Aires',
    city: 'Buenos Aires',
    latitude: '-34.6037',
    longitude: '-58.3816',
  },
  {
    counry: 'South Africa',
    region: 'Western Cape',
    city: 'Cape Town',
    latitude: '-33.9249',
    longitude: '18.4241',
  },
  {
    counry: 'India',
    region: 'Karnataka',
    city: 'Bengaluru',
    latitude: '12.9716',
    longitude: '77.5946',
  },
  { counry: 'Japan', region: 'Tokyo', city: '東京', latitude: '35.6762', longitude: '139.6503' },
  {
    counry: 'Australia',
    region: 'New South Wales',
    city: 'Sydney',
    latitude: '-33.8688',
    longitude: '151.2093',
  },
  {
    counry: 'New Zealand',
    region: 'Auckland',
    city: 'Auckland',
    latitude: '-36.8485',
    longitude: '174.7633',
  },
  { counry: 'Netherlands', region: '', city: '', latitude: '52.3824', longitude: '4.8995' },
];

/** The location image proxies report (Gmail's proxy fetches images from Google's network). */
export const PROXY_LOCATION: GeoLocation = {
  counry: 'United States',
  region: 'California',
  city: 'Mountain View',
  latitude: '37.4220',
  longitude: '-122.0841',
};

/** An operating system and browser pair as event details carry them (free strings, spec §9). */
export interface Agent {
  readonly os: string;
  readonly browser: string;
}

/**
 * Plausible `os`/`browser` pairs per device class (spec §9). `unknown` stands for image
 * proxies and unparseable user agents, including empty strings.
 */
export const AGENTS: Readonly<Record<Device, readonly Agent[]>> = {
  desktop: [
    { os: 'Windows 11', browser: 'Chrome' },
    { os: 'Windows 10', browser: 'Edge' },
    { os: 'Windows 10', browser: 'Outlook' },
    { os: 'macOS', browser: 'Safari' },
    { os: 'macOS', browser: 'Apple Mail' },
    { os: 'Linux', browser: 'Firefox' },
    { os: 'ChromeOS', browser: 'Chrome' },
  ],
  mobile: [
    { os: 'iOS', browser: 'Mobile Safari' },
    { os: 'iOS', browser: 'Apple Mail' },
    { os: 'Android', browser: 'Chrome Mobile' },
    { os: 'Android', browser: 'Gmail' },
    { os: 'Android', browser: 'Samsung Internet' },
  ],
  tablet: [
    { os: 'iPadOS', browser: 'Mobile Safari' },
    { os: 'iPadOS', browser: 'Apple Mail' },
    { os: 'Android', browser: 'Chrome' },
  ],
  unknown: [
    { os: 'Unknown', browser: 'GoogleImageProxy' },
    { os: '', browser: '' },
  ],
};
