"""Danish naturalistic norms study ("Sara og Monopolet"): podcast episodes to
dilemmas, panel and model solutions, LLM-judge matching and SAA/EAA."""
