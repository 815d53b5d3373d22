"""Fine-tuning: sizing a fine-tuning job (plan.py)."""
