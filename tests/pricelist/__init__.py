"""AWS price lists, spot and Savings Plans."""
