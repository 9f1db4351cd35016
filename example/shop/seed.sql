-- The shop's catalog, loaded into an in-memory database at start-up.
-- Amounts are in cents; timestamps are UTC RFC 3339.

CREATE TABLE categories (
    name        TEXT PRIMARY KEY,
    description TEXT NOT NULL
);

CREATE TABLE products (
    id          TEXT PRIMARY KEY CHECK (id GLOB 'p-[0-9][0-9][0-9][0-9]'),
    name        TEXT NOT NULL,
    category    TEXT NOT NULL REFERENCES categories(name),
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    stock       INTEGER NOT NULL CHECK (stock >= 0),
    description TEXT NOT NULL
);

CREATE TABLE customers (
    id      TEXT PRIMARY KEY,
    name    TEXT NOT NULL,
    country TEXT NOT NULL,
    joined  TEXT NOT NULL
);

CREATE TABLE orders (
    id          INTEGER PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    product_id  TEXT NOT NULL REFERENCES products(id),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    placed_at   TEXT NOT NULL
);

INSERT INTO categories (name, description) VALUES
    ('books',       'Printed and electronic books'),
    ('electronics', 'Gadgets, cables and chargers'),
    ('garden',      'Tools and seeds for the garden'),
    ('kitchen',     'Cookware and utensils'),
    ('toys',        'Games and toys for all ages');

INSERT INTO products (id, name, category, price_cents, stock, description) VALUES
    ('p-1001', 'The Go Programming Language',  'books',       3999, 12, 'Donovan and Kernighan on Go.'),
    ('p-1002', 'Designing Data-Intensive Apps', 'books',       4550,  4, 'Kleppmann on storage and streams.'),
    ('p-1003', 'SQLite Pocket Guide',           'books',       1299,  0, 'A short reference to SQLite SQL.'),
    ('p-1004', 'Cooking for Engineers',         'books',       2499,  7, 'Recipes as dependency graphs.'),
    ('p-2001', 'USB-C Cable 2m',                'electronics',  999, 140, 'Braided, 100 W.'),
    ('p-2002', 'Mechanical Keyboard',           'electronics', 8900,  9, 'Tenkeyless, brown switches.'),
    ('p-2003', 'Noise-Cancelling Headphones',   'electronics', 19900, 3, 'Over-ear, 30 h battery.'),
    ('p-2004', 'Travel Charger 65W',            'electronics', 3499, 25, 'GaN, three ports.'),
    ('p-2005', 'E-Reader',                      'electronics', 12900, 6, 'Glare-free 7-inch screen.'),
    ('p-3001', 'Pruning Shears',                'garden',      2199, 18, 'Bypass blades, steel.'),
    ('p-3002', 'Tomato Seeds (Heirloom)',       'garden',       399, 300, 'Five varieties.'),
    ('p-3003', 'Watering Can 10L',              'garden',      1899, 11, 'Galvanised steel.'),
    ('p-4001', 'Cast Iron Skillet',             'kitchen',     3999, 15, 'Pre-seasoned, 26 cm.'),
    ('p-4002', 'Chef Knife',                    'kitchen',     5900,  8, 'Eight inches, carbon steel.'),
    ('p-4003', 'Kitchen Scale',                 'kitchen',     1999, 22, 'Up to 5 kg, 1 g steps.'),
    ('p-4004', 'Pour-Over Coffee Set',          'kitchen',     3299,  5, 'Dripper, filters and kettle.'),
    ('p-5001', 'Wooden Train Set',              'toys',        4999,  4, '50 pieces.'),
    ('p-5002', 'Puzzle 1000 Pieces',            'toys',        1599, 13, 'Alpine lake.'),
    ('p-5003', 'Chess Set',                     'toys',        2999,  0, 'Weighted pieces, folding board.');

INSERT INTO customers (id, name, country, joined) VALUES
    ('c-01', 'Ada',      'GB', '2024-01-15T09:00:00Z'),
    ('c-02', 'Grace',    'US', '2024-02-03T14:30:00Z'),
    ('c-03', 'Linus',    'FI', '2024-03-21T08:10:00Z'),
    ('c-04', 'Margaret', 'US', '2024-05-09T17:45:00Z'),
    ('c-05', 'Ken',      'US', '2024-07-30T11:20:00Z'),
    ('c-06', 'Barbara',  'DE', '2024-09-12T10:05:00Z');

INSERT INTO orders (customer_id, product_id, quantity, placed_at) VALUES
    ('c-01', 'p-1001', 1, '2025-01-04T10:00:00Z'),
    ('c-01', 'p-2001', 3, '2025-01-04T10:00:00Z'),
    ('c-02', 'p-2002', 1, '2025-01-11T12:15:00Z'),
    ('c-02', 'p-1002', 1, '2025-01-19T09:40:00Z'),
    ('c-03', 'p-3002', 6, '2025-02-02T16:05:00Z'),
    ('c-03', 'p-3001', 1, '2025-02-02T16:05:00Z'),
    ('c-04', 'p-4001', 1, '2025-02-14T19:30:00Z'),
    ('c-04', 'p-4002', 1, '2025-02-14T19:30:00Z'),
    ('c-05', 'p-2003', 1, '2025-03-01T08:00:00Z'),
    ('c-05', 'p-2004', 2, '2025-03-01T08:00:00Z'),
    ('c-06', 'p-5002', 2, '2025-03-07T13:25:00Z'),
    ('c-06', 'p-4004', 1, '2025-03-18T07:50:00Z'),
    ('c-01', 'p-4003', 1, '2025-03-22T15:00:00Z'),
    ('c-02', 'p-2005', 1, '2025-04-02T20:10:00Z'),
    ('c-03', 'p-1004', 1, '2025-04-05T09:30:00Z'),
    ('c-04', 'p-5001', 1, '2025-04-12T11:00:00Z'),
    ('c-05', 'p-2001', 5, '2025-04-15T18:45:00Z'),
    ('c-06', 'p-3003', 1, '2025-04-20T10:10:00Z'),
    ('c-02', 'p-4001', 1, '2025-04-28T12:00:00Z'),
    ('c-01', 'p-2004', 1, '2025-05-03T09:05:00Z'),
    ('c-03', 'p-2001', 2, '2025-05-06T14:40:00Z'),
    ('c-04', 'p-1001', 2, '2025-05-10T16:20:00Z'),
    ('c-05', 'p-4002', 1, '2025-05-12T19:55:00Z'),
    ('c-06', 'p-2002', 1, '2025-05-18T08:35:00Z'),
    ('c-02', 'p-5002', 1, '2025-05-25T13:15:00Z');
