"""Units of quantities: abbreviations, spelled-out words and exact metric factors."""

from __future__ import annotations

from decimal import Decimal
from typing import Final

# --------------------------------------------------------------------------- units

_METRIC: Final[dict[str, tuple[str, Decimal]]] = {
    "mg": ("g", Decimal("0.001")),
    "g": ("g", Decimal(1)),
    "kg": ("g", Decimal(1000)),
    "t": ("g", Decimal(1000000)),
    "mm": ("m", Decimal("0.001")),
    "cm": ("m", Decimal("0.01")),
    "m": ("m", Decimal(1)),
    "km": ("m", Decimal(1000)),
    "ml": ("ml", Decimal(1)),
    "cl": ("ml", Decimal(10)),
    "dl": ("ml", Decimal(100)),
    "l": ("ml", Decimal(1000)),
}
"""Metric unit -> (base unit, exact factor)."""

_UNIT_ABBREVIATIONS: Final[dict[str, str]] = {
    "mg": "mg",
    "g": "g",
    "kg": "kg",
    "kgs": "kg",
    "mm": "mm",
    "cm": "cm",
    "m": "m",
    "km": "km",
    "kms": "km",
    "ml": "ml",
    "mL": "ml",
    "cl": "cl",
    "dl": "dl",
    "l": "l",
    "L": "l",
    "lb": "lb",
    "lbs": "lb",
    "oz": "oz",
    "fl oz": "fl oz",
    "ft": "ft",
    "yd": "yd",
    "mi": "mi",
}
"""Case-sensitive unit abbreviations (``2 G`` is not grams)."""

_UNIT_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "mg": ("milligram", "milligrams", "milligramme", "milligrammes"),
    "g": ("gram", "grams", "gramme", "grammes"),
    "kg": ("kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos"),
    "t": ("tonne", "tonnes"),
    "mm": ("millimeter", "millimeters", "millimetre", "millimetres"),
    "cm": ("centimeter", "centimeters", "centimetre", "centimetres"),
    "m": ("meter", "meters", "metre", "metres"),
    "km": ("kilometer", "kilometers", "kilometre", "kilometres"),
    "ml": ("milliliter", "milliliters", "millilitre", "millilitres"),
    "l": ("liter", "liters", "litre", "litres"),
    "lb": (),
    "oz": ("ounce", "ounces"),
    "fl oz": ("fluid ounce", "fluid ounces"),
    "gal": ("gallon", "gallons"),
    "in": ("inch", "inches"),
    "ft": ("foot", "feet"),
    "yd": ("yard", "yards"),
    "mi": ("mile", "miles"),
    "person": (
        "person",
        "persons",
        "people",
        "guest",
        "guests",
        "pax",
        "passenger",
        "passengers",
        "traveler",
        "travelers",
        "traveller",
        "travellers",
        "attendee",
        "attendees",
    ),
    "adult": ("adult", "adults"),
    "child": ("child", "children", "kid", "kids"),
    "infant": ("infant", "infants"),
    "night": ("night", "nights"),
    "room": ("room", "rooms"),
    "bedroom": ("bedroom", "bedrooms"),
    "bathroom": ("bathroom", "bathrooms"),
    "bed": ("bed", "beds"),
    "table": ("table", "tables"),
    "ticket": ("ticket", "tickets"),
    "item": ("item", "items"),
    "star": ("star", "stars"),
    "seat": ("seat", "seats"),
    "bag": ("bag", "bags"),
    "suitcase": ("suitcase", "suitcases"),
    "piece": ("piece", "pieces"),
    "pair": ("pair", "pairs"),
    "bottle": ("bottle", "bottles"),
    "box": ("box", "boxes"),
    "pack": ("pack", "packs"),
    "package": ("package", "packages"),
    "unit": ("unit", "units"),
    "cup": ("cup", "cups"),
    "drink": ("drink", "drinks"),
    "shot": ("shot", "shots"),
    "pump": ("pump", "pumps"),
    "point": ("point", "points"),
}
"""Canonical unit -> its spelled-out surface forms (matched case-insensitively)."""

_UNIT_BY_WORD: Final[dict[str, str]] = {
    " ".join(word.split()): unit for unit, words in _UNIT_WORDS.items() for word in words
}
