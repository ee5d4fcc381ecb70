module rr_arbiter4 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire [3:0] req,
    output reg  [3:0] grant
);
    reg [1:0] last;
    reg [1:0] pick;
    reg       found;
    reg [1:0] cand;
    integer   k;

    // Search the requesters in rotating order after the last one granted.
    always @* begin
        found = 1'b0;
        pick = last;
        for (k = 1; k <= 4; k = k + 1) begin
            cand = last + k[1:0];
            if (!found && req[cand]) begin
                found = 1'b1;
                pick = cand;
            end
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            grant <= 4'b0000;
            last <= 2'd3;
        end else if (found) begin
            grant <= 4'b0001 << pick;
            last <= pick;
        end else begin
            grant <= 4'b0000;
        end
    end
endmodule
