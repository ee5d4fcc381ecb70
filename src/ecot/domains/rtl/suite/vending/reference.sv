module vending (
    input  wire       clk,
    input  wire       rst,
    input  wire       nickel,
    input  wire       dime,
    input  wire       cancel,
    output reg  [4:0] credit,
    output reg        vend,
    output reg  [4:0] change
);
    localparam [4:0] PRICE = 5'd15;

    wire [4:0] coin  = dime ? 5'd10 : (nickel ? 5'd5 : 5'd0);
    wire [4:0] total = credit + coin;

    always @(posedge clk) begin
        if (rst) begin
            credit <= 5'd0;
            vend <= 1'b0;
            change <= 5'd0;
        end else if (cancel) begin
            change <= credit;
            credit <= 5'd0;
            vend <= 1'b0;
        end else if (total >= PRICE) begin
            vend <= 1'b1;
            change <= total - PRICE;
            credit <= 5'd0;
        end else begin
            vend <= 1'b0;
            change <= 5'd0;
            credit <= total;
        end
    end
endmodule
