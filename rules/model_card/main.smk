# Your own model beside the papers' models: config shortcuts and input functions, then the rules.


include: "common.smk"
include: "card.smk"
