"""CulturalPersonas (Dey et al. 2025): RAG-grounded generation of culturally situated
personality questions, data audit, MCS/OEG evaluation against human IPIP-NEO data."""
